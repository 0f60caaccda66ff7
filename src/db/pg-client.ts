/**
 * pg clients of their own, outside knex's pool: the reconcile lock's session, the restart
 * listener, and the CLI's lean path (one query where loading knex would take longer than the
 * query, src/cli/lean-list.ts). Connection settings and failures are openDatabase's, so every path
 * connects and fails alike.
 */
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
