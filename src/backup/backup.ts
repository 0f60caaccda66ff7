/**
 * Uninstall step 1: a data-only backup of every table a module owns, as a SQL file of
 * INSERT statements that `psql -f` restores. One REPEATABLE READ snapshot covers all
 * tables, so the file is one consistent moment even while the service writes. The file appears
 * under its final name only when complete and on disk.
 */
import path from 'node:path';
import type { Knex } from 'knex';
import type pg from 'pg';
import { WardError } from '../errors/ward-error.ts';
import { AtomicFile } from './atomic-file.ts';
import { FOOTER, renderHeader } from './backup-format.ts';
import type { TableCount } from './backup-format.ts';
import { withConnection } from '../db/pg-connection.ts';
import { quoteIdentifier, sqlLiteral } from '../db/sql-literal.ts';
import { currentSchema, describeTable, foreignKeys, sequenceState } from './table-catalog.ts';
import type { TableInfo } from './table-catalog.ts';
import { copyTable } from './table-copy.ts';
import { orderByForeignKeys } from './table-order.ts';

export { backupFileName } from './backup-format.ts';

export interface BackupResult {
  file: string;
  /** Parents before children: the order of the data in the file. */
  tables: TableCount[];
  rows: number;
  bytes: number;
}

/**
 * Output settings of the backup session that make each value's text exact and independent of the
 * server's defaults: shortest exact floats, UTC offsets, ISO dates, hex bytea. row_security off
 * makes a policy that would hide rows an error instead of a silently short backup.
 */
const SNAPSHOT_SETTINGS = [
  "SET LOCAL client_encoding = 'UTF8'",
  'SET LOCAL extra_float_digits = 3',
  "SET LOCAL DateStyle = 'ISO'",
  "SET LOCAL IntervalStyle = 'postgres'",
  "SET LOCAL TimeZone = 'UTC'",
  "SET LOCAL bytea_output = 'hex'",
  'SET LOCAL row_security = off',
  'SET LOCAL statement_timeout = 0',
];

export interface BackupOptions {
  /**
   * Makes the file a module backup that *replaces*: restoring it first empties the tables and the
   * module's seed tracking rows, then loads the rows and the tracking rows as they were. A module
   * is reinstalled before its restore, and the reinstall seeds afresh; without this,
   * the restore would collide with those seed rows.
   */
  module?: string;
}

/** Writes `tables` (unqualified names in the current schema) to `file`. Fails with `backup_failed`. */
export async function backupTables(
  knex: Knex,
  tables: string[],
  file: string,
  options: BackupOptions = {},
): Promise<BackupResult> {
  const at: { table: string | null } = { table: null };
  let output: AtomicFile | null = null;
  try {
    const names = [...new Set(tables)];
    for (const name of names) quoteIdentifier(name);
    output = await AtomicFile.create(file);
    const sink = output;
    const module = options.module ?? null;
    const counts = await withConnection(knex, 'close', (client) =>
      writeSnapshot(client, names, sink, at, module),
    );
    at.table = null;
    const bytes = await output.commit();
    return { file, tables: counts, rows: counts.reduce((sum, table) => sum + table.rows, 0), bytes };
  } catch (error) {
    await output?.discard();
    throw backupFailed(error, file, at.table);
  }
}

async function writeSnapshot(
  client: pg.Client,
  names: string[],
  output: AtomicFile,
  at: { table: string | null },
  module: string | null,
): Promise<TableCount[]> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  for (const setting of SNAPSHOT_SETTINGS) await client.query(setting);
  const schema = await currentSchema(client);
  const described = new Map<string, TableInfo>();
  for (const name of names) {
    at.table = name;
    described.set(name, await describeTable(client, schema, name));
  }
  at.table = null;
  // A partition whose partitioned ancestor is backed up too is already in the ancestor's rows.
  const own = names.filter(
    (name) => !described.get(name)!.ancestors.some((ancestor) => described.has(ancestor)),
  );
  const tables = own.map((name) => described.get(name)!);
  const { order, cyclic } = orderByForeignKeys(own, await foreignKeys(client, tables));
  const counts: TableCount[] = [];
  for (const name of order) {
    at.table = name;
    const { rows } = await client.query<{ rows: string }>(
      `SELECT count(*)::text AS rows FROM ${described.get(name)!.source}`,
    );
    counts.push({ table: name, rows: Number(rows[0]!.rows) });
  }
  at.table = null;
  const tracking = module === null ? [] : await trackingRows(client, module);
  const header = {
    ...(await describeServer(client)),
    created: new Date(),
    schema,
    tables: module === null ? counts : [...counts, { table: TRACKING_TABLE, rows: tracking.length }],
  };
  const put = async (text: string): Promise<void> => {
    if (!output.write(text)) await output.drain();
  };
  await put(renderHeader(header, cyclic));
  if (module !== null) await put(renderReplace(order, module));
  for (const { table, rows } of counts) {
    at.table = table;
    const info = described.get(table)!;
    const copied = await copyTable(client, info, output);
    // Same snapshot, so they agree unless something is badly wrong; then no file beats a wrong one.
    if (copied !== rows) throw new Error(`COPY returned ${copied} rows where count(*) saw ${rows}`);
    for (const sequence of info.sequences) await put(await setval(client, schema, sequence));
  }
  at.table = null;
  for (const statement of renderTracking(tracking)) await put(statement);
  await put(FOOTER);
  await client.query('COMMIT');
  return header.tables;
}

async function describeServer(client: pg.Client): Promise<{ database: string; server: string }> {
  const server = await client.query<{ database: string; server: string }>(
    "SELECT current_database() AS database, current_setting('server_version') AS server",
  );
  return server.rows[0]!;
}

const TRACKING_TABLE = 'core_external_id';
const TRACKING_COLUMNS = ['module_name', 'xml_id', 'table_name', 'record_id', 'noupdate'] as const;
type TrackingRow = Record<(typeof TRACKING_COLUMNS)[number], string>;

/** The module's seed tracking rows, in the snapshot, as text; ids are left to the sequence. */
async function trackingRows(client: pg.Client, module: string): Promise<TrackingRow[]> {
  const { rows } = await client.query<TrackingRow>(
    `SELECT ${TRACKING_COLUMNS.map((column) => `${column}::text`).join(', ')} FROM core_external_id WHERE module_name = $1 ORDER BY id`,
    [module],
  );
  return rows;
}

/** Empties what the restore is about to fill. No CASCADE: rows of other modules that still
 * reference these tables make the restore fail (and change nothing) rather than vanish. */
function renderReplace(tables: readonly string[], module: string): string {
  return [
    '-- Restoring replaces: the tables and the seed tracking rows of the module are emptied first.',
    ...(tables.length === 0 ? [] : [`TRUNCATE TABLE ${tables.map(quoteIdentifier).join(', ')};`]),
    `DELETE FROM ${TRACKING_TABLE} WHERE module_name = ${sqlLiteral(module)};`,
    '',
  ].join('\n');
}

function renderTracking(rows: readonly TrackingRow[]): string[] {
  const statements: string[] = [];
  for (let start = 0; start < rows.length; start += 500) {
    const values = rows
      .slice(start, start + 500)
      .map((row) => `(${TRACKING_COLUMNS.map((column) => sqlLiteral(row[column])).join(', ')})`);
    statements.push(
      `INSERT INTO ${quoteIdentifier(TRACKING_TABLE)} (${TRACKING_COLUMNS.join(', ')}) VALUES ${values.join(', ')};\n`,
    );
  }
  return statements;
}

/** What pg_dump --data-only writes after a table's rows, so restored serial ids continue. */
async function setval(client: pg.Client, schema: string, sequence: string): Promise<string> {
  const { lastValue, isCalled } = await sequenceState(client, schema, sequence);
  return `SELECT pg_catalog.setval(${sqlLiteral(quoteIdentifier(sequence))}, ${lastValue}, ${isCalled});\n`;
}

const FILE_SYSTEM_ERRORS = new Set([
  'ENOSPC',
  'EDQUOT',
  'EFBIG',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EISDIR',
  'EEXIST',
  'EIO',
  'ENOENT',
]);

function backupFailed(error: unknown, file: string, table: string | null): WardError {
  const what = table === null ? 'backup' : `backup of table ${JSON.stringify(table)}`;
  const reason = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const onDisk = typeof code === 'string' && FILE_SYSTEM_ERRORS.has(code);
  const hint = onDisk
    ? `check free disk space and that ${path.dirname(file)} is writable by the backend, then retry; no data was removed`
    : 'check that the table exists and that the database user may read it (see the cause), then retry; no data was removed';
  return new WardError('backup_failed', `${what} to ${file} failed: ${reason}`, hint, { cause: error });
}
