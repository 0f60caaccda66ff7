/**
 * Seed rows written in batches: one statement per batch, values passed as one text array per
 * column (a handful of parameters, not thousands) and cast to the column's type in SQL. Each batch
 * runs in a savepoint, so that after a failure the caller's transaction stays usable and the batch
 * can be searched for the record at fault.
 */
import type { Knex } from 'knex';
import type { SeedRecord } from './seed-file.ts';
import type { Column, TableInfo } from './seed-tables.ts';
import { keyColumn } from './seed-tables.ts';
import { execute } from './execute.ts';
import { quoteIdentifier } from './sql-literal.ts';

/** A record with its values as text, in the order of the batch's columns; references resolved. */
export interface Row {
  record: SeedRecord;
  values: Array<string | null>;
  /** Primary key of the tracked row, for updates. */
  recordId?: string;
}

const arrays = (count: number): string => Array.from({ length: count }, () => '?::text[]').join(', ');
const valueColumns = (columns: readonly Column[]): string[] => columns.map((_, index) => `c${index}`);
const columnArrays = (rows: readonly Row[], columns: readonly Column[]): Array<Array<string | null>> =>
  columns.map((_, index) => rows.map((row) => row.values[index] ?? null));

/** How an insert batch tracks its rows. */
export interface InsertMode {
  /** Some xml_ids already have a tracking row (their row was deleted, or moved table): repoint it. */
  retrack: boolean;
  /** Return the new primary keys, for records that later records reference. */
  returnIds: boolean;
}

/**
 * Inserts the rows and tracks them in one statement, so that a crash never leaves a row without
 * its tracking row. RETURNING yields rows in insertion order, which follows `ORDER BY n`; that is
 * what pairs each new primary key with its xml_id (Django's bulk_create relies on the same).
 * ON CONFLICT and RETURNING cost about a quarter of the statement's time, so they are only asked for when
 * needed.
 */
export async function insertRows(
  knex: Knex,
  module: string,
  table: TableInfo,
  columns: readonly Column[],
  rows: readonly Row[],
  mode: InsertMode,
): Promise<Array<{ xml_id: string; record_id: string }>> {
  const names = valueColumns(columns);
  const result = await execute<{ rows: Array<{ xml_id: string; record_id: string }> }>(
    knex,
    `WITH input AS (
       SELECT * FROM unnest(?::text[], ?::boolean[], ${arrays(columns.length)})
         WITH ORDINALITY AS input(xml_id, noupdate, ${names.join(', ')}, n)
     ), inserted AS (
       INSERT INTO ${quoteIdentifier(table.name)} (${columns.map((column) => quoteIdentifier(column.name)).join(', ')})
       SELECT ${columns.map((column, index) => `input.${names[index]}::${column.castType}`).join(', ')}
         FROM input ORDER BY input.n
       RETURNING ${quoteIdentifier(keyColumn(table).name)}::text AS record_id
     ), numbered AS (
       SELECT record_id, row_number() OVER () AS n FROM inserted
     )
     INSERT INTO core_external_id (module_name, xml_id, table_name, record_id, noupdate)
     SELECT ?, input.xml_id, ?, numbered.record_id, input.noupdate FROM numbered JOIN input USING (n)
     ${
       mode.retrack
         ? `ON CONFLICT (module_name, xml_id) DO UPDATE
              SET table_name = excluded.table_name, record_id = excluded.record_id, noupdate = excluded.noupdate`
         : ''
     }
     ${mode.returnIds ? 'RETURNING xml_id, record_id' : ''}`,
    [
      rows.map((row) => row.record.xmlId),
      rows.map((row) => row.record.noupdate),
      ...columnArrays(rows, columns),
      module,
      table.name,
    ],
  );
  return result.rows;
}

/**
 * Sets the seed values on tracked rows where they differ from the stored ones, compared as the
 * column's type prints them (so 1.5 equals a stored numeric(10,2) 1.50). Returns how many changed.
 */
export async function updateRows(
  knex: Knex,
  table: TableInfo,
  columns: readonly Column[],
  rows: readonly Row[],
): Promise<number> {
  const names = valueColumns(columns);
  const key = keyColumn(table);
  const stored = columns.map((column) => `t.${quoteIdentifier(column.name)}::text`);
  const seeded = columns.map((column, index) => `input.${names[index]}::${column.storedType}::text`);
  const result = await execute<{ rowCount: number }>(
    knex,
    `WITH input AS (
       SELECT * FROM unnest(?::text[], ${arrays(columns.length)}) AS input(record_id, ${names.join(', ')})
     )
     UPDATE ${quoteIdentifier(table.name)} AS t
        SET ${columns.map((column, index) => `${quoteIdentifier(column.name)} = input.${names[index]}::${column.castType}`).join(', ')}
       FROM input
      WHERE t.${quoteIdentifier(key.name)} = input.record_id::${key.castType}
        AND ROW(${stored.join(', ')}) IS DISTINCT FROM ROW(${seeded.join(', ')})`,
    [rows.map((row) => row.recordId!), ...columnArrays(rows, columns)],
  );
  return result.rowCount;
}

/** Sets core_external_id.noupdate where the seed files changed it. */
export async function setNoupdate(
  knex: Knex,
  module: string,
  flags: ReadonlyArray<{ xmlId: string; noupdate: boolean }>,
): Promise<void> {
  if (flags.length === 0) return;
  await execute(
    knex,
    `UPDATE core_external_id e SET noupdate = f.noupdate
       FROM unnest(?::text[], ?::boolean[]) AS f(xml_id, noupdate)
      WHERE e.module_name = ? AND e.xml_id = f.xml_id`,
    [flags.map((flag) => flag.xmlId), flags.map((flag) => flag.noupdate), module],
  );
}

export interface Failure<I> {
  item: I;
  error: unknown;
}

const PROBE_DONE = new Error('seed probe rolled back on purpose');

/**
 * Writes `items` in batches of `size`, each in a savepoint. When a batch fails, a probe finds the
 * first item that fails, by halves, in a savepoint rolled back whatever happens; `fail` turns it
 * into the error thrown (the batch's own error when no single item fails).
 */
export async function writeInBatches<I>(
  knex: Knex,
  items: readonly I[],
  size: number,
  write: (knex: Knex, batch: I[]) => Promise<void>,
  fail: (failure: Failure<I>) => Error,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    const batch = items.slice(start, start + size);
    try {
      await knex.transaction((savepoint) => write(savepoint, batch));
    } catch (error) {
      throw fail((await firstFailing(knex, batch, write)) ?? { item: batch[0]!, error });
    }
  }
}

/**
 * Keeps the first half when it succeeds alone and looks in the second, else looks in the first:
 * about 2·log2(n) statements, so a failing batch of thousands is pinned down in a moment.
 */
async function firstFailing<I>(
  knex: Knex,
  items: readonly I[],
  write: (knex: Knex, batch: I[]) => Promise<void>,
): Promise<Failure<I> | null> {
  let found: Failure<I> | null = null;
  const attempt = async (probe: Knex, part: I[]): Promise<unknown> => {
    try {
      await probe.transaction((savepoint) => write(savepoint, part));
      return null;
    } catch (error) {
      return error ?? new Error('failed without an error');
    }
  };
  try {
    await knex.transaction(async (probe) => {
      let suspects = [...items];
      while (suspects.length > 1) {
        const half = suspects.slice(0, suspects.length >> 1);
        suspects = (await attempt(probe, half)) === null ? suspects.slice(half.length) : half;
      }
      const error = await attempt(probe, suspects);
      if (error !== null) found = { item: suspects[0]!, error };
      throw PROBE_DONE;
    });
  } catch (error) {
    if (error !== PROBE_DONE) throw error;
  }
  return found;
}
