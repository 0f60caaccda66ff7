/**
 * Seed rows written in batches: one statement per batch, values passed as one text array per
 * column (a handful of parameters, not thousands) and cast to the column's type in SQL. Each batch
 * runs in a savepoint, so that after a failure the caller's transaction stays usable and the batch
 * can be searched for the record at fault. A statement is built apart from running it (Prepared),
 * so that the next batch is built while the database runs the current one.
 */
import type { Knex } from 'knex';
import type { SeedRecord, SeedValue } from './seed-file.ts';
import type { Column, TableInfo } from './seed-tables.ts';
import { keyColumn } from './seed-tables.ts';
import { execute } from './execute.ts';
import { quoteIdentifier } from '../../db/sql-literal.ts';

/** A seed value as the text PostgreSQL casts to the column's type, references resolved; null is NULL. */
export type ValueText = (value: SeedValue) => string | null;

/** A statement with its parameters built, run when called. */
export type Prepared<T> = (knex: Knex) => Promise<T>;

const QUOTED = /["\\]/;
const QUOTED_ALL = /["\\]/g;

/**
 * The array literal of `count` texts (`at(index)`, null for NULL), bound as one text parameter.
 * node-postgres would build the same literal from a JS array, but through two regular expression
 * replaces per element, after knex has walked every element looking for undefined: for 100,000
 * records that is a good part of the step's own time.
 */
function textArray(count: number, at: (index: number) => string | null): string {
  const elements = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    const text = at(index);
    elements[index] =
      text === null ? 'NULL' : `"${QUOTED.test(text) ? text.replace(QUOTED_ALL, '\\$&') : text}"`;
  }
  return `{${elements.join(',')}}`;
}

const booleanArray = (count: number, at: (index: number) => boolean): string =>
  textArray(count, (index) => (at(index) ? 't' : 'f'));

const arrays = (count: number): string => Array.from({ length: count }, () => '?::text[]').join(', ');
const valueColumns = (columns: readonly Column[]): string[] => columns.map((_, index) => `c${index}`);
const columnArrays = (
  records: ReadonlyArray<{ values: Record<string, SeedValue> }>,
  columns: readonly Column[],
  text: ValueText,
): string[] =>
  columns.map(({ name }) => textArray(records.length, (index) => text(records[index]!.values[name]!)));

/** How an insert batch tracks its rows. */
export interface InsertMode {
  /** Some xml_ids already have a tracking row (their row was deleted, or moved table): repoint it. */
  retrack: boolean;
  /** Return the new primary keys, for records that later records reference. */
  returnIds: boolean;
}

/**
 * Inserts the records' rows and tracks them in one statement, so that a crash never leaves a row
 * without its tracking row. RETURNING yields rows in insertion order, which follows `ORDER BY n`;
 * that is what pairs each new primary key with its xml_id (Django's bulk_create relies on the
 * same). The pairing zips arrays (set-returning functions in one select list advance in lockstep)
 * rather than numbering rows and joining on the number: no materialised input, sorts or join, a
 * tenth of the statement's time. A row the table did not take (a trigger returning NULL) would
 * leave a key missing, and its NULL record_id fails the statement instead of mispairing the rest.
 * ON CONFLICT and RETURNING cost about a quarter of the statement's time, so they are only asked
 * for when needed.
 */
export function insertRows(
  module: string,
  table: TableInfo,
  columns: readonly Column[],
  records: readonly SeedRecord[],
  text: ValueText,
  mode: InsertMode,
): Prepared<Array<{ xml_id: string; record_id: string }>> {
  const names = valueColumns(columns);
  const sql = `WITH inserted AS (
       INSERT INTO ${quoteIdentifier(table.name)} (${columns.map((column) => quoteIdentifier(column.name)).join(', ')})
       SELECT ${columns.map((column, index) => `input.${names[index]}::${column.castType}`).join(', ')}
         FROM unnest(${arrays(columns.length)}) WITH ORDINALITY AS input(${names.join(', ')}, n)
        ORDER BY input.n
       RETURNING ${quoteIdentifier(keyColumn(table).name)}::text AS record_id
     )
     INSERT INTO core_external_id (module_name, xml_id, table_name, record_id, noupdate)
     SELECT ?, unnest(?::text[]), ?, unnest(array_agg(inserted.record_id)), unnest(?::boolean[]) FROM inserted
     ${
       mode.retrack
         ? `ON CONFLICT (module_name, xml_id) DO UPDATE
              SET table_name = excluded.table_name, record_id = excluded.record_id, noupdate = excluded.noupdate`
         : ''
     }
     ${mode.returnIds ? 'RETURNING xml_id, record_id' : ''}`;
  const bindings = [
    ...columnArrays(records, columns, text),
    module,
    textArray(records.length, (index) => records[index]!.xmlId),
    table.name,
    booleanArray(records.length, (index) => records[index]!.noupdate),
  ];
  return async (knex) =>
    (await execute<{ rows: Array<{ xml_id: string; record_id: string }> }>(knex, sql, bindings)).rows;
}

/**
 * Sets the seed values on tracked rows where they differ from the stored ones, compared as the
 * column's type prints them (so 1.5 equals a stored numeric(10,2) 1.50). Returns how many changed.
 */
export function updateRows(
  table: TableInfo,
  columns: readonly Column[],
  rows: ReadonlyArray<{ record: SeedRecord; recordId: string }>,
  text: ValueText,
): Prepared<number> {
  const names = valueColumns(columns);
  const key = keyColumn(table);
  const stored = columns.map((column) => `t.${quoteIdentifier(column.name)}::text`);
  const seeded = columns.map((column, index) => `input.${names[index]}::${column.storedType}::text`);
  const sql = `WITH input AS (
       SELECT * FROM unnest(?::text[], ${arrays(columns.length)}) AS input(record_id, ${names.join(', ')})
     )
     UPDATE ${quoteIdentifier(table.name)} AS t
        SET ${columns.map((column, index) => `${quoteIdentifier(column.name)} = input.${names[index]}::${column.castType}`).join(', ')}
       FROM input
      WHERE t.${quoteIdentifier(key.name)} = input.record_id::${key.castType}
        AND ROW(${stored.join(', ')}) IS DISTINCT FROM ROW(${seeded.join(', ')})`;
  const bindings = [
    textArray(rows.length, (index) => rows[index]!.recordId),
    ...columnArrays(
      rows.map((row) => row.record),
      columns,
      text,
    ),
  ];
  return async (knex) => (await execute<{ rowCount: number }>(knex, sql, bindings)).rowCount;
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
 * Writes `items` in batches of `size`, each in a savepoint; `prepare` builds a batch's statement.
 * The next batch is built while the database runs the current one, so that Node and PostgreSQL
 * work at the same time rather than by turns: a batch must not depend on what the one before it
 * writes (seed.ts writes a wave per call, and records only reference records of earlier waves).
 * When a batch fails, a probe finds the first item that fails, by halves, in a savepoint rolled back
 * whatever happens; `fail` turns it into the error thrown (the batch's own error when no single item
 * fails).
 */
export async function writeInBatches<I>(
  knex: Knex,
  items: readonly I[],
  size: number,
  prepare: (batch: I[]) => Prepared<void>,
  fail: (failure: Failure<I>) => Error,
): Promise<void> {
  let batch = items.slice(0, size);
  let prepared = batch.length === 0 ? null : prepare(batch);
  for (let start = size; prepared !== null; start += size) {
    const current = batch;
    const write = prepared;
    try {
      await knex.transaction(async (savepoint) => {
        const running = write(savepoint);
        // Awaited below; until then a failure must not count as unhandled.
        running.catch(() => undefined);
        batch = items.slice(start, start + size);
        prepared = null;
        if (batch.length === 0) return running;
        // One turn of the event loop lets the statement leave before the build holds the thread.
        await new Promise(setImmediate);
        prepared = prepare(batch);
        return running;
      });
    } catch (error) {
      throw fail((await firstFailing(knex, current, prepare)) ?? { item: current[0]!, error });
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
  prepare: (batch: I[]) => Prepared<void>,
): Promise<Failure<I> | null> {
  let found: Failure<I> | null = null;
  const attempt = async (probe: Knex, part: I[]): Promise<unknown> => {
    try {
      await probe.transaction((savepoint) => prepare(part)(savepoint));
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
