/**
 * Reads and writes of `core_module` and its operation log. Only this file and the controller's
 * steps write module state; every write that changes desired state appends to the log in the
 * same transaction, so the log can never disagree with the table.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { RecordedRequires } from '../planner/ranges.ts';
import type { Action, LogRow, MissingTable, ModuleRow, ModuleState } from '../planner/types.ts';
import type { LogStep } from '../restart/follow.ts';
import { selectRows, type Queryable } from './pg-client.ts';

const PENDING_STATE: Record<Action['kind'], ModuleState> = {
  install: 'to_install',
  upgrade: 'to_upgrade',
  uninstall: 'to_uninstall',
};

/** Every module row, by name. Plain SQL because the CLI's lean path and a start run it with pg alone (pg-client.ts). */
export const MODULE_ROWS_SQL =
  'select name, state, version, installed_at, error_message, last_state_change from core_module order by name';

export async function readModuleRows(db: Queryable): Promise<ModuleRow[]> {
  return selectRows<ModuleRow>(db, MODULE_ROWS_SQL);
}

/** The version ranges each installed module was installed or upgraded with (see ranges.ts). */
export async function readRecordedRequires(knex: Knex): Promise<RecordedRequires> {
  const { rows } = (await knex.raw(
    "select name, requires from core_module where state <> 'uninstalled' and requires is not null",
  )) as { rows: Array<{ name: string; requires: Record<string, string> }> };
  return new Map(rows.map((row) => [row.name, row.requires]));
}

/**
 * Tables that installed modules' migrations created (core_module_table) and that no longer exist,
 * by module and name. Looked up on the search path, where migrations create them. Plain SQL, as
 * a start checks it before knex is loaded.
 */
export async function missingModuleTables(db: Queryable): Promise<MissingTable[]> {
  return selectRows<MissingTable>(
    db,
    `select t.module_name, t.table_name
       from core_module_table t join core_module m on m.name = t.module_name
      where m.state in ('installed', 'to_upgrade', 'to_uninstall')
        and to_regclass(quote_ident(t.table_name)) is null
      order by t.module_name, t.table_name`,
  );
}

export interface LogEntry {
  module_name: string;
  operation: string;
  step: string;
  status: string;
  message?: string | null;
  detail?: unknown;
}

/**
 * The newest operation-log id (0 while the log is empty): what a restart is followed from, by
 * `ward modules restart --wait` and by the `lastLogId` of `POST /api/v1/modules/-/restart`.
 */
export async function newestLogId(knex: Knex): Promise<number> {
  const [row] = (await knex('core_module_operation_log').max('id as id')) as Array<{ id: string | null }>;
  return Number(row?.id ?? 0);
}

/** Every operation-log row after `id`, oldest first: what a restart followed from `id` did. */
export async function logSince(knex: Knex, id: number): Promise<LogStep[]> {
  return (await knex('core_module_operation_log')
    .where('id', '>', id)
    .orderBy('id')
    .select('module_name', 'operation', 'step', 'status', 'message')) as LogStep[];
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

/** `ward modules orphan`: straight to `uninstalled`, no steps. Call inside a transaction. */
export async function recordOrphaned(trx: Knex.Transaction, name: string): Promise<string> {
  const runId = randomUUID();
  await trx('core_module')
    .where({ name })
    .update({ state: 'uninstalled', error_message: null, last_state_change: trx.fn.now() });
  await appendLog(trx, runId, [{ module_name: name, operation: 'orphan', step: 'mark', status: 'done' }]);
  return runId;
}

/**
 * The log rows that can matter for resuming: each module's rows after its latest `schedule` row
 * or finished action. Older attempts are filtered here so the read stays small as the log grows.
 */
export async function readAttemptLog(knex: Knex, modules: readonly string[]): Promise<LogRow[]> {
  if (modules.length === 0) return [];
  const result = await knex.raw(
    `select l.id, l.module_name, l.operation, l.step, l.status
       from core_module_operation_log l
      where l.module_name = any(?::text[])
        and l.id >= coalesce((select max(b.id) from core_module_operation_log b
                               where b.module_name = l.module_name
                                 and (b.step = 'schedule' or (b.step = 'finalize' and b.status = 'done'))), 0)
      order by l.id`,
    [[...modules]],
  );
  return (result.rows as Array<LogRow & { id: string | number }>).map((row) => ({
    ...row,
    id: Number(row.id),
  }));
}

export async function recordError(knex: Knex, name: string, message: string | null): Promise<void> {
  await knex('core_module').where({ name }).update({ error_message: message });
}

/**
 * Records why a module's pending change was not applied. Returns the action it is pending for, or
 * null when its row is no longer pending (an operator changed it meanwhile): then nothing is written.
 */
export async function recordBlocked(
  knex: Knex,
  name: string,
  message: string,
): Promise<Action['kind'] | null> {
  const [row] = (await knex('core_module')
    .where({ name })
    .whereIn('state', Object.values(PENDING_STATE))
    .update({ error_message: message }, ['state'])) as Array<{ state: ModuleState }>;
  const kinds = Object.keys(PENDING_STATE) as Array<Action['kind']>;
  return kinds.find((kind) => PENDING_STATE[kind] === row?.state) ?? null;
}

/**
 * The last step of every action. Conditional on the pending state the action started from: if an
 * operator scheduled something else meanwhile, their newer desired state wins and is applied next
 * time. Returns whether the row changed.
 */
export async function recordApplied(
  knex: Knex,
  name: string,
  from: ModuleState,
  to:
    | { state: 'installed'; version: string; fresh: boolean; requires: Readonly<Record<string, string>> }
    | { state: 'uninstalled' },
): Promise<boolean> {
  const changes =
    to.state === 'installed'
      ? {
          state: 'installed',
          version: to.version,
          requires: JSON.stringify(to.requires),
          ...(to.fresh ? { installed_at: knex.fn.now() } : {}),
        }
      : { state: 'uninstalled', version: null, installed_at: null, requires: null };
  const updated = await knex('core_module')
    .where({ name, state: from })
    .update({ ...changes, error_message: null, last_state_change: knex.fn.now() });
  return updated === 1;
}
