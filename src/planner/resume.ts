/**
 * Where a module's interrupted action resumes. An attempt begins at the module's latest `schedule`
 * row or its latest finished action (`finalize` done), whichever is newer; the steps of the same
 * operation logged `done` since then need not run again. Everything older belongs to a previous
 * attempt and says nothing about this one.
 */
import type { ActionKind, LogRow, StepName } from './types.ts';

export function doneSteps(log: readonly LogRow[], module: string, operation: ActionKind): Set<StepName> {
  const rows = log.filter((row) => row.module_name === module).sort((a, b) => a.id - b.id);
  let start = -1;
  rows.forEach((row, index) => {
    if (row.step === 'schedule' || (row.step === 'finalize' && row.status === 'done')) start = index;
  });
  return new Set(
    rows
      .slice(start + 1)
      .filter((row) => row.operation === operation && row.status === 'done')
      .map((row) => row.step as StepName),
  );
}
