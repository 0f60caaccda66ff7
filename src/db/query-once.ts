/**
 * One query on one short-lived connection, with pg alone: for the CLI's lean path, where loading
 * knex would take longer than the query (src/cli/lean-list.ts). Connection settings and failures
 * are openDatabase's, so both paths connect and fail alike.
 */
import pg from 'pg';
import { connectionSettings, databaseError } from './connection.ts';

export async function queryOnce<Row>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client(connectionSettings(url));
  try {
    await client.connect();
  } catch (error) {
    throw databaseError(error, url);
  }
  try {
    return (await client.query(sql)).rows as Row[];
  } catch (error) {
    // knex quotes the failed query first; do the same, so that errors read alike on both paths.
    if (error instanceof Error) error.message = `${sql} - ${error.message}`;
    throw error;
  } finally {
    await client.end();
  }
}
