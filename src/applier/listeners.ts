/**
 * The applier's own step listeners: the operation log (the resume point, so it hears every event
 * first), the logger, and the announcer the backend adds for `ward modules restart --wait`.
 */
import type { Knex } from 'knex';
import { appendLog, type LogEntry } from '../db/modules.ts';
import { announceStep } from '../db/step-channel.ts';
import type { Logger } from '../logger.ts';
import type { StepCommitted, StepCompleted, StepEvent, StepListener } from './events.ts';

/**
 * The operation-log row an event writes, if any, and the transaction to write it in (null: the
 * pool). A transactional step is recorded done inside its transaction, so the record commits with
 * the work; a non-transactional one once its work is written, at `committed`.
 */
export function logEntryOf(
  event: StepEvent,
): { entry: LogEntry; transaction: Knex.Transaction | null } | null {
  switch (event.type) {
    case 'started':
      return { entry: { ...rowOf(event), step: event.step, status: 'started' }, transaction: null };
    case 'completed':
      if (event.transaction === null) return null;
      return { entry: doneEntry(event), transaction: event.transaction };
    case 'committed':
      if (event.transactional) return null;
      return { entry: doneEntry(event), transaction: null };
    case 'failed':
      return {
        entry: { ...rowOf(event), step: event.step, status: 'failed', message: event.message },
        transaction: null,
      };
    case 'skipped':
      return {
        entry: { ...rowOf(event), step: 'skip', status: 'skipped', message: event.message },
        transaction: null,
      };
    case 'blocked':
      return {
        entry: { ...rowOf(event), step: 'blocked', status: 'skipped', message: event.message },
        transaction: null,
      };
  }
}

const rowOf = (event: { module: string; operation: string }) => ({
  module_name: event.module,
  operation: event.operation,
});

const doneEntry = (event: StepCompleted | StepCommitted): LogEntry => ({
  ...rowOf(event),
  step: event.step,
  status: 'done',
  detail: event.detail,
});

export function operationLog(knex: Knex): StepListener {
  return async (event) => {
    const record = logEntryOf(event);
    if (record !== null) await appendLog(record.transaction ?? knex, event.runId, [record.entry]);
  };
}

/**
 * Announces every row the operation log writes once it is durable, on the pool (see
 * step-channel.ts): a step's `done` row at `committed`, never in the step's transaction, so that
 * a NOTIFY can neither fail a step nor tell of work that was rolled back.
 */
export function announceSteps(knex: Knex): StepListener {
  return async (event) => {
    if (event.type === 'completed') return;
    const entry = event.type === 'committed' ? doneEntry(event) : logEntryOf(event)?.entry;
    if (entry === undefined) return;
    await announceStep(knex, {
      module: entry.module_name,
      operation: entry.operation,
      step: entry.step,
      status: entry.status,
      message: entry.message ?? null,
    });
  };
}

export function stepLogger(logger: Logger): StepListener {
  return (event) => {
    switch (event.type) {
      case 'committed':
        logger.info(
          { module: event.module, operation: event.operation, step: event.step, ms: event.ms },
          `${event.operation} ${event.module}: ${event.step} done`,
        );
        return;
      case 'failed':
        logger.error(
          {
            module: event.module,
            operation: event.operation,
            step: event.step,
            ms: event.ms,
            err: event.error,
          },
          `${event.step} failed`,
        );
        return;
      case 'skipped':
        logger.warn({ module: event.module, operation: event.operation }, event.message);
        return;
      case 'blocked':
        logger.warn({ module: event.module, code: event.code }, `not applied: ${event.message}`);
        return;
    }
  };
}
