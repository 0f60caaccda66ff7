/**
 * The tables seed records are written to, as the database describes them: columns with the types
 * to cast text values to, and the single-column primary key that core_external_id.record_id
 * holds. Seed files name tables and columns; they reach SQL only after this file found them in the
 * catalog, and only through quoteIdentifier (sql-literal.ts).
 */
import type { Knex } from 'knex';
import type { SeedProblem, SeedRecord } from './seed-file.ts';
import { execute } from './execute.ts';

export interface Column {
  name: string;
  /**
   * The column's type without modifiers (`pg_catalog.varchar`, not `character varying(20)`): an
   * explicit cast to varchar(20) would silently cut a longer value, assignment to the column
   * rejects it instead.
   */
  castType: string;
  /** The type with modifiers, to compare a seed value with the stored one (numeric(10,2) rounds). */
  storedType: string;
}

export interface TableInfo {
  name: string;
  columns: ReadonlyMap<string, Column>;
  /** Names of the primary key's columns: seeds need exactly one. */
  primaryKey: string[];
}

/** The named tables of the current schema that exist; missing ones are absent from the map. */
export async function describeTables(knex: Knex, names: readonly string[]): Promise<Map<string, TableInfo>> {
  const tables = new Map<string, TableInfo>();
  if (names.length === 0) return tables;
  const columns = await execute<{ rows: Array<{ table_name: string } & Column> }>(
    knex,
    `SELECT c.table_name, c.column_name AS name,
            quote_ident(tn.nspname) || '.' || quote_ident(t.typname) AS "castType",
            format_type(a.atttypid, a.atttypmod) AS "storedType"
       FROM information_schema.columns c
       JOIN pg_attribute a
         ON a.attrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass
        AND a.attname = c.column_name
       JOIN pg_type t ON t.oid = a.atttypid
       JOIN pg_namespace tn ON tn.oid = t.typnamespace
      WHERE c.table_schema = current_schema() AND c.table_name = ANY(?::text[])
      ORDER BY c.table_name, c.ordinal_position`,
    [names],
  );
  for (const { table_name: table, ...column } of columns.rows) {
    const info = tables.get(table) ?? { name: table, columns: new Map<string, Column>(), primaryKey: [] };
    (info.columns as Map<string, Column>).set(column.name, column);
    tables.set(table, info);
  }
  const keys = await execute<{ rows: Array<{ table_name: string; columns: string[] }> }>(
    knex,
    `SELECT cl.relname AS table_name, array_agg(a.attname::text ORDER BY k.position) AS columns
       FROM pg_index i
       JOIN pg_class cl ON cl.oid = i.indrelid
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indisprimary
        AND cl.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
        AND cl.relname = ANY(?::text[])
      GROUP BY cl.relname`,
    [names],
  );
  for (const { table_name: table, columns: key } of keys.rows) tables.get(table)!.primaryKey = key;
  return tables;
}

/** The primary key column of a table seeds can track. */
export const keyColumn = (table: TableInfo): Column => table.columns.get(table.primaryKey[0]!)!;

/** Built only for a record at fault: for each of 100,000 sound records it would be garbage. */
const says = (record: SeedRecord): string => `record "${record.xmlId}":`;

/**
 * Records naming a missing table or column, or a table without a single-column primary key. A
 * table's problem is reported once, at its first record; a column's once per table.
 */
export function tableProblems(
  records: readonly SeedRecord[],
  tables: ReadonlyMap<string, TableInfo>,
): SeedProblem[] {
  const problems: SeedProblem[] = [];
  const reported = new Set<string>();
  const report = (key: string, record: SeedRecord, path: string, message: string): void => {
    if (reported.has(key)) return;
    reported.add(key);
    problems.push({ file: record.file, path: `/records/${record.index}${path}`, message });
  };
  for (const record of records) {
    const table = tables.get(record.table);
    if (table === undefined) {
      report(record.table, record, '/table', `${says(record)} table ${record.table} does not exist`);
      continue;
    }
    if (table.primaryKey.length !== 1) {
      const has =
        table.primaryKey.length === 0
          ? 'has no primary key'
          : `has a primary key of ${table.primaryKey.length} columns (${table.primaryKey.join(', ')})`;
      report(
        record.table,
        record,
        '/table',
        `${says(record)} table ${record.table} ${has}; seeds track their rows by a single-column primary key`,
      );
      continue;
    }
    for (const column in record.values) {
      if (!table.columns.has(column)) {
        report(
          `${record.table}.${column}`,
          record,
          `/values/${column}`,
          `${says(record)} table ${record.table} has no column ${column}`,
        );
      }
    }
  }
  return problems;
}
