/**
 * Preloaded into a backend (`node --import`, see crash.ts) to kill it with SIGKILL at a chosen
 * point, so nothing gets to clean up, as in a power cut. It subscribes to what the process
 * announces; Ward's code has no test switch.
 *
 * CRASH_AT_STEP="<n>:<start|middle|end>": at the n-th step a restart runs (counting from 1), just
 * after `started` is recorded, after the step's work but before `done` is recorded, or just after
 * `done` is committed. CRASH_AT_BATCH="<n>:<middle|end>": at the n-th batch a migration_import
 * execute run writes, inside the batch's transaction after its writes, or just after it commits.
 */
import { subscribe } from 'node:diagnostics_channel';
import { observeSteps, type StepEvent } from '../../src/applier/events.ts';

const die = () => process.kill(process.pid, 'SIGKILL');

/** "<n>:<point>" as the point's event and n, or null when unset or not one of `points`. */
function target(value: string | undefined, points: Record<string, string>) {
  const match = /^(\d+):(\w+)$/.exec(value ?? '');
  const point = match?.[2] ?? '';
  const event = Object.hasOwn(points, point) ? points[point] : undefined;
  return match === null || event === undefined ? null : { number: Number(match[1]), event };
}

const step = target(process.env.CRASH_AT_STEP, { start: 'started', middle: 'completed', end: 'committed' });
if (step !== null)
  observeSteps((event: StepEvent) => {
    if (event.type === step.event && 'number' in event && event.number === step.number) die();
  });

const batch = target(process.env.CRASH_AT_BATCH, { middle: 'written', end: 'committed' });
if (batch !== null)
  subscribe('ward.migration_import.batch', (message) => {
    const { batch: number, point } = message as { batch: number; point: string };
    if (number === batch.number && point === batch.event) die();
  });
