/**
 * The seed step (install and upgrade apply seeds; uninstall step 3 purges them). Seeds
 * are upserted by xml_id, tracked in core_external_id, in batches: check the files, read what the
 * database holds, plan, then write wave by wave (a record after those it references), and last
 * delete what the seeds no longer list. Every write is idempotent, so a run after a crash, whether
 * its transaction rolled back or not, converges on the same rows.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { WardError } from '../../errors/ward-error.ts';
import { deleteSeedRows } from './seed-delete.ts';
import { deleteFailed, invalidSeeds, recordFailed, seedHint } from './seed-errors.ts';
import type { SeedRecord, SeedValue } from './seed-file.ts';
import { checkSeedFiles, isRef, parseRef } from './seed-file.ts';
import type { ForeignRef } from './seed-order.ts';
import { orderSeeds } from './seed-order.ts';
import { planSeeds, trackedDeletion } from './seed-plan.ts';
import type { Column, TableInfo } from './seed-tables.ts';
import { describeTables, tableProblems } from './seed-tables.ts';
import { liveRows, readTracked, resolveForeignRefs } from './seed-tracking.ts';
import type { Prepared } from './seed-write.ts';
import { insertRows, setNoupdate, updateRows, writeInBatches } from './seed-write.ts';

export interface SeedResult {
  created: number;
  updated: number;
  unchanged: number;
  /** Records left as they are: noupdate ones, and rows other rows still reference. */
  kept: number;
  deleted: number;
}

/** Rows per statement: large enough that round trips do not matter, small enough to name a failure fast. */
export const SEED_BATCH_SIZE = 5000;

/** Applies `<dir>/seeds/*.json` of a module. `knex` is the step's transaction. */
export async function applySeeds(
  knex: Knex,
  module: { name: string; dir: string },
  options: { batchSize?: number } = {},
): Promise<SeedResult> {
  const size = options.batchSize ?? SEED_BATCH_SIZE;
  const { waves, referenced, foreign: foreignRefs } = await readSeeds(module);
  const records = waves.flat();
  const tracked = await readTracked(knex, module.name);
  const names = new Set<string>();
  for (const record of records) names.add(record.table);
  for (const row of tracked) names.add(row.table);
  const tables = await describeTables(knex, [...names]);
  const foreign = await resolveForeignRefs(knex, foreignRefs);
  const problems = [...tableProblems(records, tables), ...foreign.problems];
  if (problems.length > 0) throw invalidSeeds(module.name, problems);

  const live = await liveRows(knex, records, tracked, tables);
  const plan = planSeeds(waves, tracked, (row) => live.has(row.id));
  const ids = new Map(plan.known);
  const text = (value: SeedValue): string | null => {
    if (value === null) return null;
    if (!isRef(value)) return String(value);
    const ref = parseRef(value.$ref, module.name);
    return ref.module === module.name ? ids.get(ref.xmlId)! : foreign.ids.get(`${ref.module}.${ref.xmlId}`)!;
  };
  const result: SeedResult = { created: 0, updated: 0, unchanged: 0, kept: plan.kept, deleted: 0 };

  /** `statement` builds the statement of a batch of items of one table, with the same columns. */
  const write = async <T>(
    items: readonly T[],
    recordOf: (item: T) => SeedRecord,
    statement: (table: TableInfo, columns: Column[], batch: T[]) => Prepared<void>,
  ): Promise<void> => {
    for (const group of byColumns(items, recordOf)) {
      const table = tables.get(group.table)!;
      const columns = group.columns.map((name) => table.columns.get(name)!);
      await writeInBatches(
        knex,
        group.items,
        size,
        (batch) => statement(table, columns, batch),
        ({ item, error }) => recordFailed(module.name, recordOf(item), error),
      );
    }
  };
  const insert =
    (retrack: boolean) =>
    (table: TableInfo, columns: Column[], batch: SeedRecord[]): Prepared<void> => {
      const returnIds = referenced.size > 0 && batch.some((record) => referenced.has(record.xmlId));
      const statement = insertRows(module.name, table, columns, batch, text, { retrack, returnIds });
      return async (trx) => {
        for (const { xml_id: xmlId, record_id: recordId } of await statement(trx)) ids.set(xmlId, recordId);
        result.created += batch.length;
      };
    };
  const itself = (record: SeedRecord): SeedRecord => record;

  for (const wave of plan.waves) {
    // Updates first: an update may free a unique value that an insert of the same wave takes.
    await write(
      wave.updates,
      (update) => update.record,
      (table, columns, batch) => {
        const statement = updateRows(table, columns, batch, text);
        return async (trx) => {
          const changed = await statement(trx);
          result.updated += changed;
          result.unchanged += batch.length - changed;
        };
      },
    );
    await write(wave.inserts, itself, insert(false));
    await write(wave.retracks, itself, insert(true));
  }
  await setNoupdate(knex, module.name, plan.flags);
  const removed = await deleteSeedRows(knex, module.name, plan.deletions, tables, size, ({ item, error }) =>
    deleteFailed(module.name, item, error),
  );
  result.deleted = removed.deleted;
  result.kept += removed.referenced.length;
  return result;
}

/**
 * uninstall step 3: deletes every row the module's seeds created, newest first so that
 * children go before their parents, and every tracking row of the module. A row that other rows
 * still reference cannot be deleted; it stays in its table (the migration downgrade that follows
 * drops the module's own tables) and is counted as `kept`, but it is no longer tracked: the
 * module is being uninstalled, and a reinstall seeds afresh.
 */
export async function purgeExternalIds(
  knex: Knex,
  moduleName: string,
  options: { batchSize?: number } = {},
): Promise<{ deleted: number; kept: number }> {
  const tracked = await readTracked(knex, moduleName);
  const tables = await describeTables(knex, [...new Set(tracked.map((row) => row.table))]);
  const deletions = tracked.map((row) => trackedDeletion(row, true)).reverse();
  const removed = await deleteSeedRows(
    knex,
    moduleName,
    deletions,
    tables,
    options.batchSize ?? SEED_BATCH_SIZE,
    ({ item, error }) => deleteFailed(moduleName, item, error),
  );
  await knex('core_external_id').where({ module_name: moduleName }).del();
  return { deleted: removed.deleted, kept: removed.referenced.length };
}

/** The seed files in file-name order, checked and ordered in waves; no `seeds/` means no records. */
async function readSeeds(module: {
  name: string;
  dir: string;
}): Promise<{ waves: SeedRecord[][]; referenced: ReadonlySet<string>; foreign: ForeignRef[] }> {
  const dir = path.join(module.dir, 'seeds');
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { waves: [], referenced: new Set(), foreign: [] };
    throw new WardError('seed_failed', `module ${module.name}: cannot read ${dir}`, seedHint(module.name), {
      cause: error,
    });
  }
  const files = await Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      return { file, text: await readFile(file, 'utf8') };
    }),
  );
  const checked = await checkSeedFiles(module.name, files);
  if (!checked.ok) throw invalidSeeds(module.name, checked.problems);
  const ordered = orderSeeds(module.name, checked.records);
  if (!ordered.ok) throw invalidSeeds(module.name, ordered.problems);
  return ordered;
}

/**
 * Items grouped by table and columns of their record: one statement shape per group. Neighbours
 * mostly share a shape, so an item is first compared with the group of the one before it, without
 * building a key.
 */
function byColumns<T>(
  items: readonly T[],
  recordOf: (item: T) => SeedRecord,
): Array<{ table: string; columns: string[]; items: T[] }> {
  const groups = new Map<string, { table: string; columns: string[]; items: T[] }>();
  let last: { table: string; columns: string[]; items: T[] } | undefined;
  for (const item of items) {
    const record = recordOf(item);
    if (last === undefined || !sameColumns(record, last)) {
      let key = record.table;
      for (const column in record.values) key += `,${column}`;
      last = groups.get(key);
      if (last === undefined) {
        last = { table: record.table, columns: Object.keys(record.values), items: [] };
        groups.set(key, last);
      }
    }
    last.items.push(item);
  }
  return [...groups.values()];
}

function sameColumns(record: SeedRecord, group: { table: string; columns: readonly string[] }): boolean {
  if (record.table !== group.table) return false;
  let at = 0;
  for (const column in record.values) if (group.columns[at++] !== column) return false;
  return at === group.columns.length;
}
