/**
 * Batched writes of a module's own rows (`sdk.batch`): one INSERT and one UPDATE per batch,
 * whatever its size, through `unnest` of one array per column, so a batch costs one statement and
 * a fixed number of parameters. A new row's id must be known per record: it comes from a unique
 * column in RETURNING (patients' MRN), or is drawn from the table's sequence beforehand; the order
 * of RETURNING is never relied upon.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { BatchTable } from './index.ts';

type Db = Knex | Knex.Transaction;
type TableSpec<Row> = BatchTable<Row>;

export async function nextIds(db: Db, table: string, count: number): Promise<number[]> {
  if (count === 0) return [];
  const result = (await db.raw(
    `select nextval(pg_get_serial_sequence(?, 'id'))::int as id from generate_series(1, ?)`,
    [table, count],
  )) as { rows: Array<{ id: number }> };
  return result.rows.map((row) => row.id);
}

function arrays<Row>(
  spec: TableSpec<Row>,
  rows: ReadonlyArray<{ id?: number; columns: Row }>,
  withId: boolean,
) {
  const columns = spec.columns;
  const names = [...(withId ? ['id'] : []), ...columns.map((column) => column.name)];
  const types = [...(withId ? ['int'] : []), ...columns.map((column) => column.type)];
  const selects = [
    ...(withId ? ['v.id'] : []),
    ...columns.map((column) => `v.${column.name}${column.cast ? `::${column.cast}` : ''}`),
  ];
  const bindings: Knex.Value[] = [
    ...(withId ? [rows.map((row) => row.id ?? null) as Knex.Value] : []),
    // Each array becomes one PostgreSQL array parameter; node-pg renders null elements as NULL.
    ...columns.map((column) => rows.map((row) => column.of(row.columns) ?? null) as Knex.Value),
  ];
  const unnest = `unnest(${types.map((type) => `?::${type}[]`).join(', ')}) as v(${names.join(', ')})`;
  return { names, selects, bindings, unnest };
}

/** Inserts with the given ids (from `nextIds`). */
export async function insertRows<Row>(
  db: Db,
  spec: TableSpec<Row>,
  rows: ReadonlyArray<{ id: number; columns: Row }>,
): Promise<void> {
  if (rows.length === 0) return;
  const { names, selects, bindings, unnest } = arrays(spec, rows, true);
  await db.raw(
    `insert into ${spec.table} (${names.join(', ')}) select ${selects.join(', ')} from ${unnest}`,
    bindings,
  );
}

/**
 * Inserts, skipping rows that conflict on the unique column `key`; returns the new ids by `key`,
 * which tells each record its id without relying on the order of RETURNING.
 */
export async function insertUnique<Row>(
  db: Db,
  spec: TableSpec<Row>,
  rows: readonly Row[],
  key: keyof Row & string,
): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const { names, selects, bindings, unnest } = arrays(
    spec,
    rows.map((columns) => ({ columns })),
    false,
  );
  const result = (await db.raw(
    `insert into ${spec.table} (${names.join(', ')}) select ${selects.join(', ')} from ${unnest} on conflict (${key}) do nothing returning id, ${key} as key`,
    bindings,
  )) as { rows: Array<{ id: number; key: string }> };
  return new Map(result.rows.map((row) => [row.key, row.id]));
}

export async function updateRows<Row>(
  db: Db,
  spec: TableSpec<Row>,
  rows: ReadonlyArray<{ id: number; columns: Row }>,
): Promise<void> {
  if (rows.length === 0) return;
  const { selects, bindings, unnest } = arrays(spec, rows, true);
  const sets = spec.columns.map((column, index) => `${column.name} = ${selects[index + 1]}`);
  if (spec.touch !== null) sets.push(`${spec.touch} = now()`);
  await db.raw(`update ${spec.table} as t set ${sets.join(', ')} from ${unnest} where t.id = v.id`, bindings);
}

/**
 * Inserts the rows without an id (drawing ids from the table's sequence) and updates those with
 * one: one INSERT and one UPDATE. Returns each row's id, in the order given.
 */
export async function upsertRows<Row>(
  db: Db,
  spec: TableSpec<Row>,
  rows: ReadonlyArray<{ id?: number; columns: Row }>,
): Promise<number[]> {
  const fresh = await nextIds(db, spec.table, rows.filter((row) => row.id === undefined).length);
  let next = 0;
  const withIds = rows.map((row) => ({
    id: row.id ?? fresh[next++]!,
    columns: row.columns,
    fresh: row.id === undefined,
  }));
  await insertRows(
    db,
    spec,
    withIds.filter((row) => row.fresh),
  );
  await updateRows(
    db,
    spec,
    withIds.filter((row) => !row.fresh),
  );
  return withIds.map((row) => row.id);
}

/** What COPY's text format reads as a backslash, line break, carriage return and tab. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One field of a COPY text row: `\N` for NULL, the text with COPY's four special characters escaped. */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\n\r\t]/g, (char) => COPY_ESCAPES[char]!);
}

/** Names temporary tables uniquely in this process, so two batches of one transaction never meet. */
let staged = 0;

/**
 * Copies `rows` into a new temporary table, dropped when the transaction ends, through one `COPY`:
 * its columns are `ord` (the row's index in `rows`), `id` (null for a row without) and the
 * columns of `spec` (a `cast` column already of its cast type). Returns the table's qualified
 * name, for one statement that joins the whole batch.
 */
export async function stage<Row>(
  trx: Db,
  spec: TableSpec<Row>,
  rows: ReadonlyArray<{ id?: number; columns: Row }>,
): Promise<string> {
  // Outside a transaction the table would be dropped as soon as it was made.
  if (trx.isTransaction !== true) throw new Error('sdk.batch.stage needs a transaction');
  const name = `ward_stage_${++staged}`;
  const columns = spec.columns.map((column) => `${column.name} ${column.cast ?? column.type}`);
  await trx.raw(
    `create temporary table ${name} (ord int not null, id int, ${columns.join(', ')}) on commit drop`,
  );
  if (rows.length === 0) return `pg_temp.${name}`;
  const lines = rows.map((row, index) =>
    [
      String(index),
      copyField(row.id),
      ...spec.columns.map((column) => copyField(column.of(row.columns))),
    ].join('\t'),
  );
  // knex lends a transaction's own connection, so the COPY joins the transaction.
  const client = (await trx.client.acquireConnection()) as pg.Client;
  await pipeline(Readable.from([lines.join('\n') + '\n']), client.query(copyFrom(`copy ${name} from stdin`)));
  return `pg_temp.${name}`;
}
