/**
 * The seed step (SPEC §3: install and upgrade apply seeds; uninstall step 3 purges them). Seeds
 * are upserted by xml_id, tracked in core_external_id, in batches: check the files, read what the
 * database holds, plan, then write wave by wave (a record after those it references), and last
 * delete what the seeds no longer list. Every write is idempotent, so a run after a crash, whether
 * its transaction rolled back or not, converges on the same rows.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { WardError } from '../errors.ts';
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
import type { Failure, Row } from './seed-write.ts';
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
  const tables = await describeTables(knex, [
    ...new Set([...records, ...tracked].map((record) => record.table)),
  ]);
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
  const failed = ({ item, error }: Failure<Row>) => recordFailed(module.name, item.record, error);
  const result: SeedResult = { created: 0, updated: 0, unchanged: 0, kept: plan.kept, deleted: 0 };

  const write = async (
    items: ReadonlyArray<{ record: SeedRecord; recordId?: string }>,
    statement: (trx: Knex, table: TableInfo, columns: Column[], rows: Row[]) => Promise<void>,
  ): Promise<void> => {
    for (const group of byColumns(items)) {
      const table = tables.get(group.table)!;
      const columns = group.columns.map((name) => table.columns.get(name)!);
      const rows = group.items.map(({ record, recordId }) => ({
        record,
        recordId,
        values: group.columns.map((column) => text(record.values[column]!)),
      }));
      await writeInBatches(knex, rows, size, (trx, batch) => statement(trx, table, columns, batch), failed);
    }
  };

  for (const wave of plan.waves) {
    // Updates first: an update may free a unique value that an insert of the same wave takes.
    await write(wave.updates, async (trx, table, columns, rows) => {
      const changed = await updateRows(trx, table, columns, rows);
      result.updated += changed;
      result.unchanged += rows.length - changed;
    });
    for (const retrack of [false, true]) {
      const inserts = wave.inserts.filter((insert) => insert.retrack === retrack);
      await write(inserts, async (trx, table, columns, rows) => {
        const returnIds = rows.some((row) => referenced.has(row.record.xmlId));
        const created = await insertRows(trx, module.name, table, columns, rows, { retrack, returnIds });
        for (const { xml_id: xmlId, record_id: recordId } of created) ids.set(xmlId, recordId);
        result.created += rows.length;
      });
    }
  }
  await setNoupdate(knex, module.name, plan.flags);
  const removed = await deleteSeedRows(knex, plan.deletions, tables, size, ({ item, error }) =>
    deleteFailed(module.name, item, error),
  );
  result.deleted = removed.deleted;
  result.kept += removed.referenced.length;
  return result;
}

/**
 * SPEC §3 uninstall step 3: deletes every row the module's seeds created, newest first so that
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
  const deletions = tracked.map((row) => trackedDeletion(row, row.id)).reverse();
  const removed = await deleteSeedRows(
    knex,
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

/** Records grouped by table and columns: one statement shape per group. */
function byColumns<T extends { record: SeedRecord }>(
  items: readonly T[],
): Array<{ table: string; columns: string[]; items: T[] }> {
  const groups = new Map<string, { table: string; columns: string[]; items: T[] }>();
  for (const item of items) {
    let key = item.record.table;
    for (const column in item.record.values) key += `,${column}`;
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, { table: item.record.table, columns: Object.keys(item.record.values), items: [item] });
    else group.items.push(item);
  }
  return [...groups.values()];
}
