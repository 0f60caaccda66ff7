/**
 * pg clients of their own, outside knex's pool: the reconcile lock's session, the restart
 * listener, the CLI's lean path (one query where loading knex would take longer than the query,
 * src/cli/lean-list.ts), and the pool a backend starts and answers `/health` with before knex is
 * loaded. Connection settings and failures are openDatabase's, so every path
 * connects and fails alike.
 */
import type { Knex } from 'knex';
import pg from 'pg';
import { noteFailedQuery } from '../errors/loggable-error.ts';
import { connectionSettings, databaseError } from './connection.ts';

/**
 * A connected client. A refused handshake can leave the socket open (a missing password fails on
 * our side), and the server would hold it, and this process, until its authentication timeout
 * (60 s): so a failed connect ends the client before the error goes up, as a WardError when it is
 * one an operator can fix.
 */
export async function connectClient(url: string, applicationName?: string): Promise<pg.Client> {
  const settings = connectionSettings(url);
  const client = new pg.Client(
    applicationName === undefined ? settings : { ...settings, application_name: applicationName },
  );
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw databaseError(error, url);
  }
  return client;
}

export async function queryOnce<Row>(url: string, sql: string): Promise<Row[]> {
  const client = await connectClient(url);
  try {
    return (await client.query(sql)).rows as Row[];
  } catch (error) {
    // knex quotes the failed query first; do the same, so that errors read alike on both paths.
    if (error instanceof Error) {
      error.message = `${sql} - ${error.message}`;
      noteFailedQuery(error, sql);
    }
    throw error;
  } finally {
    await client.end();
  }
}

/** Runs plain SQL: knex (`raw`) and pg pools or clients (`query`) both do. */
export type Queryable = Knex | Pick<pg.Pool, 'query'>;

/** The rows of one statement without bindings, on whichever `db` holds. */
export async function selectRows<Row>(db: Queryable, sql: string): Promise<Row[]> {
  const result = typeof db === 'function' ? await db.raw(sql) : await db.query(sql);
  return (result as { rows: Row[] }).rows;
}

/**
 * A small pool of plain pg connections, proven with one round trip: what a backend's start and
 * `/health` query before knex is loaded (src/db/lazy-knex.ts), knex's own pool serving the rest.
 */
export async function openPool(url: string, max: number): Promise<pg.Pool> {
  const pool = new pg.Pool({ ...connectionSettings(url), max });
  // An idle connection that the server ends must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseError(error, url);
  }
  return pool;
}
