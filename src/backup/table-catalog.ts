/**
 * What a data-only backup needs to know about each table, read from pg_catalog inside the backup's
 * transaction: the columns to copy, the sequences to carry forward, and the foreign keys that order
 * the tables.
 */
import type pg from 'pg';
import { quoteIdentifier } from '../db/sql-literal.ts';
import type { ForeignKeyEdge } from './table-order.ts';

export interface ColumnInfo {
  name: string;
  /** Read as numeric: money's text output follows lc_monetary, which the restoring server may not share. */
  money: boolean;
}

export interface TableInfo {
  name: string;
  oid: string;
  /** `"schema"."table"`, for the queries of the backup session. The file itself names tables unqualified. */
  qualified: string;
  /**
   * What the backup reads: a partitioned table with all its partitions (those created at run time
   * too; a restore routes the rows back), any other table without its inheritance children, which
   * are tables of their own.
   */
  source: string;
  /** Partitioned tables this table is a partition of, whose rows therefore already hold its rows. */
  ancestors: string[];
  /** Columns a restore can insert: generated columns are computed again, so they are left out. */
  columns: ColumnInfo[];
  /** A GENERATED ALWAYS identity column refuses given values unless the INSERT overrides it. */
  identityAlways: boolean;
  /** Sequences owned by the table's columns (serial and identity), by name. */
  sequences: string[];
}

/** The schema unqualified names resolve to; a backup reads and a restore writes tables there. */
export async function currentSchema(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
  const schema = rows[0]?.schema ?? null;
  if (schema === null) throw new Error('no schema of the search_path exists, so no table can be found');
  return schema;
}

/**
 * Finds the table in `schema`, takes the ACCESS SHARE lock pg_dump takes (no DROP or ALTER can
 * change it until the backup's transaction ends), and reads its columns and sequences.
 */
export async function describeTable(client: pg.Client, schema: string, name: string): Promise<TableInfo> {
  const qualified = `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  const found = await client.query<{ oid: string; kind: string }>(
    `SELECT c.oid::text AS oid, c.relkind::text AS kind
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2`,
    [schema, name],
  );
  const relation = found.rows[0];
  if (relation === undefined) throw new Error(`table ${qualified} does not exist`);
  if (relation.kind !== 'r' && relation.kind !== 'p')
    throw new Error(`${qualified} is not a table (pg_class.relkind ${relation.kind})`);
  await client.query(`LOCK TABLE ${qualified} IN ACCESS SHARE MODE`);
  const columns = await client.query<{ name: string; identity: string; money: boolean }>(
    `SELECT attname AS name, attidentity::text AS identity,
            atttypid = 'pg_catalog.money'::pg_catalog.regtype AS money
       FROM pg_catalog.pg_attribute
      WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
      ORDER BY attnum`,
    [relation.oid],
  );
  const sequences = await client.query<{ name: string }>(
    `SELECT s.relname AS name
       FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.objid AND s.relkind = 'S'
      WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
        AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
        AND d.refobjid = $1::oid AND d.deptype IN ('a', 'i')
      ORDER BY s.relname`,
    [relation.oid],
  );
  const ancestors = await client.query<{ name: string }>(
    `SELECT c.relname AS name
       FROM pg_catalog.pg_partition_ancestors($1::oid) a JOIN pg_catalog.pg_class c ON c.oid = a.relid
      WHERE a.relid <> $1::oid AND c.relnamespace = (SELECT relnamespace FROM pg_catalog.pg_class WHERE oid = $1::oid)`,
    [relation.oid],
  );
  return {
    name,
    oid: relation.oid,
    qualified,
    source: relation.kind === 'p' ? qualified : `ONLY ${qualified}`,
    ancestors: ancestors.rows.map((row) => row.name),
    columns: columns.rows.map((column) => ({ name: column.name, money: column.money })),
    identityAlways: columns.rows.some((column) => column.identity === 'a'),
    sequences: sequences.rows.map((sequence) => sequence.name),
  };
}

/** Foreign keys among `tables` only: references to tables outside the backup do not order it. */
export async function foreignKeys(
  client: pg.Client,
  tables: readonly TableInfo[],
): Promise<ForeignKeyEdge[]> {
  const { rows } = await client.query<ForeignKeyEdge>(
    `SELECT child.relname AS child, parent.relname AS parent
       FROM pg_catalog.pg_constraint k
       JOIN pg_catalog.pg_class child ON child.oid = k.conrelid
       JOIN pg_catalog.pg_class parent ON parent.oid = k.confrelid
      WHERE k.contype = 'f' AND k.conrelid = ANY($1::oid[]) AND k.confrelid = ANY($1::oid[])`,
    [tables.map((table) => table.oid)],
  );
  return rows;
}

/** The sequence's position, as `setval` takes it: is_called false means nextval returns last_value. */
export async function sequenceState(
  client: pg.Client,
  schema: string,
  sequence: string,
): Promise<{ lastValue: string; isCalled: boolean }> {
  const { rows } = await client.query<{ last_value: string; is_called: boolean }>(
    `SELECT last_value::text AS last_value, is_called FROM ${quoteIdentifier(schema)}.${quoteIdentifier(sequence)}`,
  );
  const row = rows[0];
  if (row === undefined || !/^-?\d+$/.test(row.last_value))
    throw new Error(`sequence ${quoteIdentifier(sequence)} has no readable position`);
  return { lastValue: row.last_value, isCalled: row.is_called };
}
