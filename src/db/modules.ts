/**
 * Reads and writes of `core_module` and its operation log. Only this file and the controller's
 * steps write module state; every write that changes desired state appends to the log in the
 * same transaction, so the log can never disagree with the table.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Action, ModuleRow, ModuleState } from '../controller/types.ts';

const PENDING_STATE: Record<Action['kind'], ModuleState> = {
  install: 'to_install',
  upgrade: 'to_upgrade',
  uninstall: 'to_uninstall',
};

export async function readModuleRows(knex: Knex): Promise<ModuleRow[]> {
  return (await knex('core_module')
    .select('name', 'state', 'version', 'installed_at', 'error_message', 'last_state_change')
    .orderBy('name')) as ModuleRow[];
}

export interface LogEntry {
  module_name: string;
  operation: string;
  step: string;
  status: string;
  message?: string | null;
  detail?: unknown;
}

export async function appendLog(knex: Knex, runId: string, entries: LogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await knex('core_module_operation_log').insert(
    entries.map((entry) => ({
      run_id: runId,
      module_name: entry.module_name,
      operation: entry.operation,
      step: entry.step,
      status: entry.status,
      message: entry.message ?? null,
      detail: entry.detail === undefined ? null : JSON.stringify(entry.detail),
    })),
  );
}

/** Writes the desired state of every action, with one `schedule` log row each. Call inside a transaction. */
export async function recordDesiredState(trx: Knex.Transaction, actions: Action[]): Promise<string> {
  const runId = randomUUID();
  for (const action of actions) {
    await trx('core_module')
      .insert({ name: action.module, state: PENDING_STATE[action.kind], last_state_change: trx.fn.now() })
      .onConflict('name')
      .merge(['state', 'last_state_change']);
  }
  await appendLog(
    trx,
    runId,
    actions.map((action) => ({
      module_name: action.module,
      operation: action.kind,
      step: 'schedule',
      status: 'done',
      detail: { reason: action.reason, fromVersion: action.fromVersion, toVersion: action.toVersion },
    })),
  );
  return runId;
}

/** `ward modules orphan`: straight to `uninstalled`, no steps (SPEC §3). Call inside a transaction. */
export async function recordOrphaned(trx: Knex.Transaction, name: string): Promise<string> {
  const runId = randomUUID();
  await trx('core_module')
    .where({ name })
    .update({ state: 'uninstalled', error_message: null, last_state_change: trx.fn.now() });
  await appendLog(trx, runId, [{ module_name: name, operation: 'orphan', step: 'mark', status: 'done' }]);
  return runId;
}
