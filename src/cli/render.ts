/**
 * Text rendering for the CLI, as pure functions from the objects that --json prints, so the two
 * outputs can never say different things.
 */
import { summarisePlan, type ListEntry } from '../planner/overview.ts';
import { describeBreak } from '../planner/range-refusals.ts';
import { refusalToError } from '../planner/refusals.ts';
import type { Action, Plan, Reason } from '../planner/types.ts';

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `1 session`, `2 sessions`. */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** `ward modules list`, on the oclif and the lean path alike. */
export function renderList(entries: ListEntry[]): string {
  return table(
    ['NAME', 'VERSION', 'STATE', 'CATEGORY', 'DEPENDS'],
    entries.map((entry) => [
      entry.name,
      entry.version ?? '-',
      entry.state,
      entry.category ?? 'missing',
      entry.depends.length === 0 ? '-' : entry.depends.join(','),
    ]),
  );
}

const SYMBOL: Record<Action['kind'], string> = { install: '+', upgrade: '~', uninstall: '-' };

export function describeReason(reason: Reason): string {
  switch (reason.kind) {
    case 'requested':
      return 'requested';
    case 'pending':
      return 'pending';
    case 'dependency':
      return `dependency of ${reason.of}`;
    case 'new_dependency':
      return `new dependency of upgraded ${reason.of}`;
    case 'dependent':
      return `dependent of ${reason.of}`;
    case 'referencer':
      return `references ${reason.of}'s tables`;
  }
}

/** A dependent an uninstall leaves behind, as the plan names it. */
const describeInactive = (module: string, dependency: string): string =>
  `left without ${dependency}: stays installed but inactive (its routes answer 503, its pages are hidden) until ${dependency} is installed again, or uninstall ${module}`;

function describeVersion(action: Action): string {
  if (action.kind === 'upgrade') return `${action.fromVersion ?? '?'} -> ${action.toVersion ?? '?'}`;
  return (action.kind === 'install' ? action.toVersion : action.fromVersion) ?? '-';
}

/** Terraform-style: one line per module with its version and reason, then the totals. */
export function renderPlan(plan: Plan): string {
  const lines: string[] = [];
  if (plan.actions.length > 0) {
    const rows = plan.actions.map((action) => [
      `${SYMBOL[action.kind]} ${action.module}`,
      describeVersion(action),
      describeReason(action.reason),
    ]);
    const widths = [0, 1].map((column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
    for (const row of rows)
      lines.push(
        `  ${(row[0] ?? '').padEnd(widths[0] ?? 0)}  ${(row[1] ?? '').padEnd(widths[1] ?? 0)}  ${row[2]}`,
      );
    lines.push('');
  }
  for (const blocked of plan.blocked)
    lines.push(`  ! ${blocked.module}  blocked: ${refusalToError(blocked.refusal).message}`);
  if (plan.blocked.length > 0) lines.push('');
  for (const { module, dependency } of plan.inactive)
    lines.push(`  ! ${module}  ${describeInactive(module, dependency)}`);
  if (plan.inactive.length > 0) lines.push('');
  for (const broken of plan.rangeBreaks ?? [])
    lines.push(`  ! ${broken.module}  left outside a range (--force): ${describeBreak(broken, 'would be')}`);
  if ((plan.rangeBreaks ?? []).length > 0) lines.push('');
  const summary = summarisePlan(plan);
  lines.push(
    `Plan: ${summary.install} to install, ${summary.upgrade} to upgrade, ${summary.uninstall} to uninstall.`,
  );
  return lines.join('\n');
}

export const NEXT_STEP_RESTART =
  'Next step: restart the backend to apply it (`ward modules restart`, POST /api/v1/modules/-/restart, or restart the backend container).';
