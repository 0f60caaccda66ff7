/**
 * Module restore: feeds a backup file written by steps/backup.ts back into the
 * module's tables. The file is streamed and run statement by statement on one connection, inside
 * one transaction that commits only when every table received exactly the rows its header
 * records: a restore either completes or changes nothing. The rows of the backup's INSERT
 * statements go in through COPY FROM STDIN (copy-in.ts), one COPY per table: the server then
 * parses no INSERT, which was most of a restore's time. Statements that are not as backup writes
 * them (a hand edit) run as they are.
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import type pg from 'pg';
import { WardError } from '../errors/ward-error.ts';
import { readStatements } from './sql-statements.ts';
import type { ScriptItem } from './sql-statements.ts';
import { backupFilePattern, moduleOfBackup, parseHeader } from './backup-format.ts';
import type { TableCount } from './backup-format.ts';
import { withConnection } from '../db/pg-connection.ts';
import { CopyFailed, CopyIn } from './copy-in.ts';
import { insertToCopy } from './insert-to-copy.ts';
import { quoteIdentifier, unquoteIdentifier } from '../db/sql-literal.ts';

export interface RestoreResult {
  tables: TableCount[];
  rows: number;
}

export type RestoreProgress = (progress: { table: string; rows: number }) => void;

/**
 * Runs in the restore's transaction, after every table received its rows and before COMMIT: what
 * must commit with the restore or not at all (its audit row). Throwing rolls the restore back.
 */
export type OnRestored = (client: pg.Client, result: RestoreResult) => Promise<void>;

/** The statements a backup holds; anything else means the file is not (or no longer) one. */
type Statement =
  | { kind: 'begin' }
  | { kind: 'commit' }
  /** `seedsOf`: the module whose seed records (core_external_id) the statement deletes. */
  | { kind: 'run'; sql: string; seedsOf?: string }
  | { kind: 'insert'; table: string; sql: string };

const NOTHING_CHANGED = 'nothing was restored (the transaction was rolled back)';
const SEED_TRACKING = 'core_external_id';

/** Statements in file order, with read and parse failures as `restore_unreadable`. */
type NextItem = () => Promise<ScriptItem | null>;

/**
 * `module`, when given, is the module the backup must belong to: every table it restores must be
 * one that module owns (`core_module_table`), and the seed records it resets must be that module's.
 * Without it (tests, tooling) any backup of existing tables is restored.
 */
export async function restoreBackup(
  knex: Knex,
  file: string,
  onProgress?: RestoreProgress,
  module: string | null = null,
  onRestored?: OnRestored,
): Promise<RestoreResult> {
  const source = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 });
  const script = readStatements(source as AsyncIterable<string>)[Symbol.asyncIterator]();
  const next: NextItem = async () => {
    try {
      const item = await script.next();
      return item.done === true ? null : item.value;
    } catch (error) {
      throw unreadable(file, error instanceof Error ? error.message : String(error), error);
    }
  };
  try {
    const { expected, first } = await readHeader(file, next);
    return await withConnection(knex, 'rollback', async (client) => {
      await client.query('BEGIN');
      if (module !== null) await requireOwnTables(client, file, module, expected);
      await requireTables(client, file, expected);
      const restored = await runStatements(client, file, first, next, expected, onProgress, module);
      if (module !== null) await requireOwnSeedRecords(client, file, module);
      for (const { table, rows } of expected) {
        const got = restored.get(table)!;
        if (got !== rows)
          throw new WardError(
            'restore_count_mismatch',
            `${file} restored ${got} rows into ${quoteIdentifier(table)} where its header records ${rows}`,
            `the file was altered or cut short after the backup; ${NOTHING_CHANGED}; restore another backup of the module`,
          );
      }
      const result = { tables: expected, rows: expected.reduce((sum, table) => sum + table.rows, 0) };
      await onRestored?.(client, result);
      await client.query('COMMIT');
      return result;
    });
  } finally {
    source.destroy();
  }
}

/** The header's tables and row counts, and the first statement after it. */
async function readHeader(
  file: string,
  next: NextItem,
): Promise<{ expected: TableCount[]; first: ScriptItem | null }> {
  const comments: string[] = [];
  let item = await next();
  for (; item?.kind === 'comment'; item = await next()) comments.push(item.text);
  const expected = parseHeader(comments);
  if (expected === null) throw unreadable(file, 'it does not start with the header backups have');
  return { expected, first: item };
}

/**
 * Runs the statements inside the caller's transaction (the file's BEGIN and COMMIT only mark
 * where the data is: this transaction commits after the counts are checked) and returns the rows
 * inserted per table.
 */
async function runStatements(
  client: pg.Client,
  file: string,
  first: ScriptItem | null,
  next: NextItem,
  expected: readonly TableCount[],
  onProgress: RestoreProgress | undefined,
  module: string | null,
): Promise<Map<string, number>> {
  const restored = new Map(expected.map(({ table }) => [table, 0]));
  const copy = new CopyIn(client);
  try {
    let begun = false;
    let committed = false;
    for (let current = first; current !== null; current = await next()) {
      if (current.kind === 'comment') continue;
      const statement = classify(current.text);
      const misplaced = statement?.kind === 'insert' && !begun;
      if (statement === null || committed || misplaced)
        throw unreadable(file, `unexpected statement ${JSON.stringify(current.text.slice(0, 80))}`);
      if (statement.kind !== 'insert') await copy.close();
      if (statement.kind === 'begin') {
        if (begun) throw unreadable(file, 'it has a second BEGIN');
        begun = true;
      } else if (statement.kind === 'commit') committed = true;
      else if (statement.kind === 'run') {
        if (statement.seedsOf !== undefined && module !== null && statement.seedsOf !== module)
          throw wrongModule(file, module, `the seed records of ${statement.seedsOf}`);
        await execute(client, file, statement.sql, null);
      } else {
        const before = restored.get(statement.table);
        if (before === undefined)
          throw unreadable(
            file,
            `it inserts into ${quoteIdentifier(statement.table)}, which its header does not list`,
          );
        const rows = insertToCopy(statement.sql);
        let added: number;
        if (rows === null) {
          await copy.close();
          added = await execute(client, file, statement.sql, statement.table);
        } else {
          await copy.write(statement.table, rows);
          added = rows.rows;
        }
        restored.set(statement.table, before + added);
        onProgress?.({ table: statement.table, rows: before + added });
      }
    }
    await copy.close();
    if (!committed) throw unreadable(file, 'it ends before its COMMIT (the file is truncated)');
    return restored;
  } catch (error) {
    // The connection must be free for the rollback.
    await copy.abandon();
    if (error instanceof CopyFailed) throw failed(file, error.table, error.cause);
    throw error;
  }
}

/** The newest `module_<module>_<timestamp>.sql` in `dir`, or null when there is none. */
export async function latestBackup(dir: string, module: string): Promise<string | null> {
  const pattern = backupFilePattern(module);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // The timestamp is fixed-width UTC, so text order is time order.
  const newest = names
    .filter((name) => pattern.test(name))
    .sort()
    .at(-1);
  return newest === undefined ? null : path.join(dir, newest);
}

/** Checked before any row goes in: a backup of another module's tables must not empty them. */
async function requireOwnTables(
  client: pg.Client,
  file: string,
  module: string,
  expected: readonly TableCount[],
): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT name FROM unnest($1::text[]) AS name
      WHERE NOT EXISTS (SELECT 1 FROM core_module_table WHERE module_name = $2 AND table_name = name)
      ORDER BY name`,
    // Ward's own seed tracking is in every backup; requireOwnSeedRecords checks its rows.
    [expected.map(({ table }) => table).filter((table) => table !== SEED_TRACKING), module],
  );
  if (rows.length > 0)
    throw wrongModule(file, module, rows.map((row) => quoteIdentifier(row.name)).join(', '));
}

/** The seed-tracking rows this transaction inserted (xmin is its id) must all be the module's. */
async function requireOwnSeedRecords(client: pg.Client, file: string, module: string): Promise<void> {
  const { rows } = await client.query<{ module_name: string }>(
    `SELECT DISTINCT module_name FROM ${SEED_TRACKING}
      WHERE xmin = pg_catalog.pg_current_xact_id()::xid AND module_name <> $1 ORDER BY module_name`,
    [module],
  );
  if (rows.length > 0)
    throw wrongModule(file, module, `the seed records of ${rows.map((row) => row.module_name).join(', ')}`);
}

function wrongModule(file: string, module: string, what: string): WardError {
  const owner = moduleOfBackup(file);
  return new WardError(
    'restore_wrong_module',
    `${file} would restore ${what}, which ${module} does not own`,
    `restore a backup of ${module} (ward modules restore ${module} picks its newest)${owner !== null && owner !== module ? `, or restore this file as ${owner}'s (ward modules restore ${owner} --file ...)` : ''}; ${NOTHING_CHANGED}`,
  );
}

/** Checked before any row goes in, so the refusal names every missing table at once. */
async function requireTables(
  client: pg.Client,
  file: string,
  expected: readonly TableCount[],
): Promise<void> {
  const quoted = expected.map(({ table }) => quoteIdentifier(table));
  const { rows } = await client.query<{ name: string }>(
    'SELECT name FROM unnest($1::text[]) AS name WHERE pg_catalog.to_regclass(name) IS NULL',
    [quoted],
  );
  if (rows.length === 0) return;
  const module = moduleOfBackup(file) ?? '<name>';
  throw new WardError(
    'restore_target_missing',
    `${file} restores into ${rows.map((row) => row.name).join(', ')}, which ${rows.length === 1 ? 'does' : 'do'} not exist`,
    `install the module first (ward modules install ${module} then restart); ${NOTHING_CHANGED}`,
  );
}

function classify(text: string): Statement | null {
  if (text === 'BEGIN;') return { kind: 'begin' };
  if (text === 'COMMIT;') return { kind: 'commit' };
  // SET LOCAL keeps the backup's settings inside this transaction, off the pooled connection.
  const set = /^SET (?:LOCAL )?([A-Za-z_]+ = [^;]+);$/.exec(text);
  if (set !== null) return { kind: 'run', sql: `SET LOCAL ${set[1]}` };
  if (/^TRUNCATE TABLE "(?:[^"]|"")+"(?:, "(?:[^"]|"")+")*;$/.test(text)) return { kind: 'run', sql: text };
  const seeds = /^DELETE FROM core_external_id WHERE module_name = '([a-z][a-z0-9_]{0,62})';$/.exec(text);
  if (seeds !== null) return { kind: 'run', sql: text, seedsOf: seeds[1]! };
  if (/^SELECT pg_catalog\.setval\('(?:[^']|'')+', -?\d+, (?:true|false)\);$/.test(text))
    return { kind: 'run', sql: text };
  const insert = /^INSERT INTO ("(?:[^"]|"")+") /.exec(text);
  if (insert !== null) return { kind: 'insert', table: unquoteIdentifier(insert[1]!), sql: text };
  return null;
}

async function execute(client: pg.Client, file: string, sql: string, table: string | null): Promise<number> {
  try {
    return (await client.query(sql)).rowCount ?? 0;
  } catch (error) {
    throw failed(file, table, error);
  }
}

function failed(file: string, table: string | null, error: unknown): WardError {
  const where = table === null ? '' : ` into ${quoteIdentifier(table)}`;
  return new WardError(
    'restore_failed',
    `restoring ${file} failed${where}: ${error instanceof Error ? error.message : String(error)}`,
    `${NOTHING_CHANGED}; fix the cause and restore again (the module's tables must exist, with the backup's columns, and hold none of its rows)`,
    { cause: error },
  );
}

function unreadable(file: string, reason: string, cause?: unknown): WardError {
  return new WardError(
    'restore_unreadable',
    `${file} cannot be restored: ${reason}`,
    `restore a module_<name>_<timestamp>.sql file that a ward uninstall wrote; ${NOTHING_CHANGED}`,
    cause === undefined ? {} : { cause },
  );
}
