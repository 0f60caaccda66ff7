/**
 * Reads core_external_id: which rows a module's seeds created, whether those rows are
 * still there, and the primary keys that references to other modules' records resolve to.
 */
import type { Knex } from 'knex';
import type { SeedProblem, SeedRecord } from './seed-file.ts';
import type { ForeignRef } from './seed-order.ts';
import type { TableInfo } from './seed-tables.ts';
import { keyColumn } from './seed-tables.ts';
import { execute } from './execute.ts';
import { quoteIdentifier } from '../../db/sql-literal.ts';

/** A core_external_id row. `id` grows with creation, so descending order deletes children first. */
export interface Tracked {
  id: number;
  xmlId: string;
  table: string;
  recordId: string;
  noupdate: boolean;
}

export async function readTracked(knex: Knex, module: string): Promise<Tracked[]> {
  const rows = await knex('core_external_id')
    .where('module_name', module)
    .orderBy('id')
    .select<Array<{ id: string; xml_id: string; table_name: string; record_id: string; noupdate: boolean }>>(
      'id',
      'xml_id',
      'table_name',
      'record_id',
      'noupdate',
    );
  return rows.map((row) => ({
    id: Number(row.id),
    xmlId: row.xml_id,
    table: row.table_name,
    recordId: row.record_id,
    noupdate: row.noupdate,
  }));
}

/** Which of `recordIds` (primary keys as text) still have a row in `table`. */
export async function existingRecordIds(
  knex: Knex,
  table: TableInfo,
  recordIds: readonly string[],
): Promise<Set<string>> {
  if (recordIds.length === 0) return new Set();
  const key = keyColumn(table);
  const result = await execute<{ rows: Array<{ id: string }> }>(
    knex,
    `SELECT t.${quoteIdentifier(key.name)}::text AS id FROM ${quoteIdentifier(table.name)} t
      WHERE t.${quoteIdentifier(key.name)} IN (SELECT unnest(?::text[])::${key.castType})`,
    [recordIds],
  );
  return new Set(result.rows.map((row) => row.id));
}

/** Primary keys of other modules' records, keyed `<module>.<xml_id>`; unknown ones are absent. */
export async function foreignRecordIds(
  knex: Knex,
  refs: ReadonlyArray<{ module: string; xmlId: string }>,
): Promise<Map<string, string>> {
  if (refs.length === 0) return new Map();
  const result = await execute<{ rows: Array<{ ref: string; record_id: string }> }>(
    knex,
    `SELECT e.module_name || '.' || e.xml_id AS ref, e.record_id
       FROM core_external_id e
       JOIN unnest(?::text[], ?::text[]) AS r(module_name, xml_id) USING (module_name, xml_id)`,
    [refs.map((ref) => ref.module), refs.map((ref) => ref.xmlId)],
  );
  return new Map(result.rows.map((row) => [row.ref, row.record_id]));
}

/** Primary keys of the other modules' records the seeds reference, and a problem for each unknown one. */
export async function resolveForeignRefs(
  knex: Knex,
  uses: readonly ForeignRef[],
): Promise<{ ids: Map<string, string>; problems: SeedProblem[] }> {
  const ids = await foreignRecordIds(knex, uses);
  const problems = uses
    .filter((use) => !ids.has(`${use.module}.${use.xmlId}`))
    .map((use) => ({
      file: use.record.file,
      path: `/records/${use.record.index}/values/${use.column}/$ref`,
      message: `record "${use.record.xmlId}": module ${use.module} has no installed seed record "${use.xmlId}"`,
    }));
  return { ids, problems };
}

/** Tracking ids of the rows seeded records are tracked at that still exist, table by table. */
export async function liveRows(
  knex: Knex,
  records: readonly SeedRecord[],
  tracked: readonly Tracked[],
  tables: ReadonlyMap<string, TableInfo>,
): Promise<Set<number>> {
  if (tracked.length === 0) return new Set();
  const seededIn = new Map(records.map((record) => [record.xmlId, record.table]));
  const byTable = Map.groupBy(
    tracked.filter((row) => seededIn.get(row.xmlId) === row.table),
    (row) => row.table,
  );
  const live = new Set<number>();
  for (const [table, rows] of byTable) {
    const existing = await existingRecordIds(
      knex,
      tables.get(table)!,
      rows.map((row) => row.recordId),
    );
    for (const row of rows) if (existing.has(row.recordId)) live.add(row.id);
  }
  return live;
}
