/**
 * Removes rows a module's seeds created, newest first so that children go before the parents they
 * reference, each batch together with its tracking rows in one statement (a crash leaves either
 * both or neither). Rows already gone are fine. A row that other rows still reference
 * (foreign_key_violation) stays, with its tracking row, so that nothing points at a row Ward no
 * longer knows about; the next upgrade or purge tries again.
 */
import type { Knex } from 'knex';
import type { Deletion } from './seed-plan.ts';
import type { TableInfo } from './seed-tables.ts';
import { keyColumn } from './seed-tables.ts';
import { execute } from './execute.ts';
import { quoteIdentifier } from '../../db/sql-literal.ts';
import type { Failure } from './seed-write.ts';

/** PostgreSQL's foreign_key_violation: the row is still referenced. */
const FOREIGN_KEY_VIOLATION = '23503';

export interface DeleteResult {
  /** Tracking rows removed with their rows. */
  deleted: number;
  /** Rows left in place because other rows reference them. */
  referenced: Deletion[];
}

/** `deletions` newest first, of `module`'s records; `tables` describes the tables that still exist. */
export async function deleteSeedRows(
  knex: Knex,
  module: string,
  deletions: readonly Deletion[],
  tables: ReadonlyMap<string, TableInfo>,
  size: number,
  fail: (failure: Failure<Deletion>) => Error,
): Promise<DeleteResult> {
  let pending = deletions;
  let deleted = 0;
  for (;;) {
    const referenced: Deletion[] = [];
    for (const run of runs(pending, size)) {
      const attempt = (items: Deletion[]) =>
        knex.transaction((savepoint) => deleteRun(savepoint, module, items, tables));
      try {
        deleted += await attempt(run);
        continue;
      } catch {
        // Retried one by one below, to keep what can go and name what cannot.
      }
      for (const item of run) {
        try {
          deleted += await attempt([item]);
        } catch (error) {
          if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw fail({ item, error });
          referenced.push(item);
        }
      }
    }
    // A referenced row may only be referenced by another row of this module deleted after it.
    if (referenced.length === 0 || referenced.length === pending.length) return { deleted, referenced };
    pending = referenced;
  }
}

/** Consecutive deletions from the same table, at most `size` at a time. */
function* runs(deletions: readonly Deletion[], size: number): Generator<Deletion[]> {
  let run: Deletion[] = [];
  for (const item of deletions) {
    if (run.length === size || (run.length > 0 && run[0]!.table !== item.table)) {
      yield run;
      run = [];
    }
    run.push(item);
  }
  if (run.length > 0) yield run;
}

/** Tracking rows go by module and xml_id, the table's key (core_external_id.id has no index). */
async function deleteRun(
  knex: Knex,
  module: string,
  run: readonly Deletion[],
  tables: ReadonlyMap<string, TableInfo>,
): Promise<number> {
  const table = tables.get(run[0]!.table);
  const untrack = run.flatMap((item) => (item.untrack ? [item.xmlId] : []));
  // A dropped table (or one that lost its primary key) took the rows with it: only tracking remains.
  if (table === undefined || table.primaryKey.length !== 1) {
    await knex('core_external_id').where('module_name', module).whereIn('xml_id', untrack).delete();
    return untrack.length;
  }
  const key = keyColumn(table);
  await execute(
    knex,
    `WITH gone AS (
       DELETE FROM ${quoteIdentifier(table.name)}
        WHERE ${quoteIdentifier(key.name)} IN (SELECT unnest(?::text[])::${key.castType})
     )
     DELETE FROM core_external_id WHERE module_name = ? AND xml_id = ANY(?::text[])`,
    [run.map((item) => item.recordId), module, untrack],
  );
  return untrack.length;
}
