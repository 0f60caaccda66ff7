/**
 * What the applier says as it runs a plan, as plain data. Listeners are called in order, each
 * awaited before the next: the operation log first, then the logger, then the caller's own (the
 * backend announces steps over NOTIFY), then the process-wide ones `observeSteps` added. So a
 * process-wide listener hears of an event once the operation log records it: at `started` the
 * `started` row exists; at `completed` of a transactional step the `done` row is written in the
 * still open transaction, while a non-transactional step has none yet; at `committed` it is
 * durable.
 *
 * Who may fail what: the operation log must succeed. If it cannot write a step's `started` or
 * `done` row, the step fails with that error (and the other listeners do not hear the event); if
 * it cannot write `failed`, `skipped` or `blocked`, the database is gone and the apply stops. At
 * `completed` a throw from any listener fails the step and rolls its work back: the listener may
 * have used the step's transaction, which PostgreSQL aborts on a failed statement, so committing
 * it regardless would undo the work silently. At every other event the other listeners are
 * best-effort: a throw is logged at warn and the plan goes on. A listener that must not fail a
 * step (the NOTIFY announcer) does nothing at `completed`. A process-wide listener can still stop
 * the process (SIGKILL) at any event.
 *
 * This file imports nothing at run time: a test preloads it (`node --import`) to observe steps.
 */
import type { Knex } from 'knex';
import type { Action, StepName } from '../planner/types.ts';

interface StepRef {
  runId: string;
  /** Which step of this run it is, from 1 (steps found done before a crash are neither run nor counted). */
  number: number;
  module: string;
  operation: Action['kind'];
  step: StepName;
}

/** The step is about to run. */
export interface StepStarted extends StepRef {
  type: 'started';
}

/**
 * The step's work is done and not yet durable. `transaction` is the step's open transaction, or
 * null for a non-transactional step (its work is already written): what a listener writes with it
 * commits with the work, or is undone with it.
 */
export interface StepCompleted extends StepRef {
  type: 'completed';
  detail: Record<string, unknown>;
  transaction: Knex.Transaction | null;
}

/** The step's work and its `done` record are durable. `ms`: how long the step took. */
export interface StepCommitted extends StepRef {
  type: 'committed';
  detail: Record<string, unknown>;
  transactional: boolean;
  ms: number;
}

/**
 * The step threw, a listener of its `completed` did, or the operation log could not record its
 * `started` or `done` row; its transaction, if any, was rolled back. The module
 * keeps its pending state and `message` in `core_module.error_message`; its later steps do not run.
 */
export interface StepFailed extends StepRef {
  type: 'failed';
  error: unknown;
  message: string;
  ms: number;
}

/** A module's action did not run: a module it needs failed or was skipped in the same run. */
export interface ModuleSkipped {
  type: 'skipped';
  runId: string;
  module: string;
  operation: Action['kind'];
  /** `skipped: <why>`, as the operation log and `core_module.error_message` record it. */
  message: string;
}

/**
 * The planner refused a module's pending change (`code`: the refusal); nothing of it runs. The
 * operation log records it as step `blocked`, status `skipped`, with `message`.
 */
export interface ModuleBlocked {
  type: 'blocked';
  runId: string;
  module: string;
  operation: Action['kind'];
  code: string;
  message: string;
}

export type StepEvent =
  StepStarted | StepCompleted | StepCommitted | StepFailed | ModuleSkipped | ModuleBlocked;

export type StepListener = (event: StepEvent) => void | Promise<void>;

/**
 * One list per process, not per copy of this file: a backend runs the bundle's copy
 * (src/server/backend-bundle.ts) while a test's preload imports this one from src/.
 */
const OBSERVERS = Symbol.for('ward.applier.step-observers');
const observers = ((globalThis as Record<symbol, unknown>)[OBSERVERS] ??= []) as StepListener[];

/** Adds a listener to every plan this process applies, after the applier's own; returns its removal. */
export function observeSteps(listener: StepListener): () => void {
  observers.push(listener);
  return () => {
    const at = observers.indexOf(listener);
    if (at !== -1) observers.splice(at, 1);
  };
}

/** The process-wide listeners, in the order they were added. */
export const observed = (): readonly StepListener[] => [...observers];
