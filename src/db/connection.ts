/**
 * The one way to reach the database: DATABASE_URL when set, otherwise the embedded server.
 * Connection failures become WardErrors that say what to fix; nothing below prints a stack trace
 * for a database that is simply not there.
 */
import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import { redactUrl } from '../config/redact-url.ts';
import { noteFailedQuery } from '../errors/loggable-error.ts';
import { WardError } from '../errors/ward-error.ts';
import { ensureStorageDir } from '../storage-dir.ts';

/** PostgreSQL SQLSTATEs that mean "the database is not ready for Ward", with what to do. */
const UNDEFINED_TABLE = '42P01';
const INVALID_PASSWORD = '28P01';
const INVALID_CATALOG = '3D000';

export async function databaseUrl(config: Config): Promise<string> {
  if (config.databaseUrl !== null) return checkDatabaseUrl(config.databaseUrl);
  await ensureStorageDir(config.storageDir);
  // Loaded only when used: it brings child_process, net and os, which a DATABASE_URL never needs.
  const { ensureEmbedded } = await import('./embedded.ts');
  return (await ensureEmbedded(config.storageDir)).url;
}

/** Pure: DATABASE_URL as given, or a WardError saying what is wrong with it (never echoing a password). */
export function checkDatabaseUrl(value: string): string {
  const refuse = (problem: string) =>
    new WardError(
      'database_url_invalid',
      `DATABASE_URL ${problem}`,
      'give postgres://<user>:<password>@<host>:<port>/<database>, or unset it to use the embedded PostgreSQL',
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('is not a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw refuse(`is a ${url.protocol.slice(0, -1)} URL, not a PostgreSQL one`);
  if (url.hostname === '') throw refuse('names no host');
  return value;
}

/** How long a connection may take before the database counts as unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * pg connection settings for knex's pool and for single pg clients alike. The connect timeout is
 * pg's own as well as the pool's: without it, a server that accepts but never answers keeps a
 * connection attempt pending past the pool's timeout, and closing the pool waits for it (30 s).
 */
export const connectionSettings = (url: string) => ({
  ...sessionOptions(url),
  application_name: 'ward',
  connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
});

/**
 * Settings every session of Ward's starts with, whatever the server's, the database's or the
 * role's defaults. The audit chain needs READ COMMITTED: an append reads the last row's hash after
 * taking its lock, and only under READ COMMITTED does that read see the append committed just
 * before; a database defaulting to REPEATABLE READ or SERIALIZABLE would fork the chain.
 * Options sent at connection time win over `ALTER DATABASE … SET` and `ALTER ROLE … SET`.
 */
export const SESSION_OPTIONS = '-c default_transaction_isolation=read\\ committed';

/**
 * The URL and pg's `options`. pg lets an `options` parameter of the URL replace the one given
 * beside it, so one in DATABASE_URL moves out of the URL and goes first, Ward's after it.
 */
function sessionOptions(url: string): { connectionString: string; options: string } {
  if (!/[?&]options=/.test(url)) return { connectionString: url, options: SESSION_OPTIONS };
  const parsed = new URL(url);
  const given = parsed.searchParams.get('options') ?? '';
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), options: `${given} ${SESSION_OPTIONS}`.trim() };
}

/**
 * Opens a pool and proves it works with one round trip, so callers fail early and clearly.
 * `warn` receives knex's warnings (default: stderr; the backend passes its logger).
 */
export async function openDatabase(
  config: Config,
  options: { pool?: number; warn?: (message: string) => void } = {},
): Promise<Knex> {
  const url = await databaseUrl(config);
  // Loaded here, not above: knex is ~330 files, and the CLI's error rendering and lean path import
  // this module for databaseUrl and databaseError alone.
  const { default: knexFactory } = await import('knex');
  const knex = knexFactory({
    client: 'pg',
    connection: connectionSettings(url),
    pool: { min: 0, max: options.pool ?? 4 },
    acquireConnectionTimeout: CONNECT_TIMEOUT_MS,
    // Error messages reach the text logs, so they must never carry bound values (a failed patient
    // update would log the patient's name). knex's default pastes the bindings over `?` in the
    // message; with pg the SQL it pastes into already holds `$1`, so nothing is pasted today, but
    // that rests on an internal detail: this keeps the message to the SQL with its placeholders.
    compileSqlOnError: false,
    log: { warn: knexWarning(options.warn ?? ((message) => console.warn(message))) },
  });
  // So that a logged error keeps the SQL (placeholders only) and loses the values the server quoted.
  knex.on('query-error', (error: unknown, query: { sql?: unknown }) => {
    if (typeof query.sql === 'string') noteFailedQuery(error, query.sql);
  });
  try {
    await knex.raw('select 1');
  } catch (error) {
    await knex.destroy();
    throw databaseError(error, url);
  }
  return knex;
}

/**
 * knex logs each failed connection attempt before the error reaches the caller, which reports it
 * anyway (by default with console.log: on stdout it would spoil `--json`). Other warnings pass on.
 */
const knexWarning =
  (warn: (message: string) => void) =>
  (message: string): void => {
    if (!message.startsWith('Acquire connection error')) warn(message);
  };

/** Translates driver errors an operator can fix into WardErrors; anything else is returned as is. */
export function databaseError(error: unknown, url?: string): unknown {
  const code = (error as { code?: string } | null)?.code;
  const where = url === undefined ? 'the database' : `the database at ${redactUrl(url)}`;
  const fixUrl = 'check DATABASE_URL (unset it to use the embedded PostgreSQL) and that the server runs';
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return new WardError('database_unreachable', `cannot reach ${where} (${code})`, fixUrl, {
        cause: error,
      });
    case INVALID_PASSWORD:
      return new WardError('database_auth_failed', `${where} refused the credentials`, fixUrl, {
        cause: error,
      });
    case INVALID_CATALOG:
      return new WardError('database_missing', `${where} does not exist`, `create it, or ${fixUrl}`, {
        cause: error,
      });
    case UNDEFINED_TABLE:
      if (!/relation "(core_|knex_)/.test((error as Error).message)) return error;
      return new WardError(
        'schema_missing',
        `the core tables are missing (${(error as Error).message})`,
        'run `ward db migrate` to bring the core schema to its head revision',
        { cause: error },
      );
    default:
      if (error instanceof Error && /client password must be a string/.test(error.message))
        return new WardError(
          'database_auth_failed',
          `${where} asks for a password and DATABASE_URL has none`,
          'put the password in DATABASE_URL: postgres://<user>:<password>@<host>:<port>/<database>',
          { cause: error },
        );
      if (error instanceof Error && /does not support SSL connections/.test(error.message))
        return new WardError(
          'database_ssl_unsupported',
          `${where} does not accept SSL connections, and DATABASE_URL asks for one (sslmode)`,
          'enable SSL on the server, or remove sslmode from DATABASE_URL on a trusted network',
          { cause: error },
        );
      // Closed (FIN) or reset (RST) before PostgreSQL's first answer: not a PostgreSQL server.
      if (
        error instanceof Error &&
        (/^Connection terminated unexpectedly$/.test(error.message) || code === 'ECONNRESET')
      )
        return new WardError(
          'database_unreachable',
          `${where} closed the connection without answering as PostgreSQL`,
          `${fixUrl} (is that host and port a PostgreSQL server?)`,
          { cause: error },
        );
      // knex's pool timeout, or pg's own (connectionTimeoutMillis) for a single client.
      if (error instanceof Error && /timeout acquiring a connection|^timeout expired$/i.test(error.message))
        return new WardError('database_unreachable', `cannot reach ${where} (timeout)`, fixUrl, {
          cause: error,
        });
      return error;
  }
}
