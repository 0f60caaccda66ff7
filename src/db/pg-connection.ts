/**
 * One pooled connection held for work the query builder cannot express: COPY streams, and SQL
 * files run statement by statement inside one transaction.
 */
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * What to do with the connection when `work` throws. `rollback` suits work whose failures are
 * rejected queries (the connection then sits idle in an aborted transaction). `close` suits work
 * that may fail while a COPY still streams, when no query can be sent: closing aborts the
 * transaction on the server, and knex's pool drops a closed connection instead of lending it again.
 */
export type OnFailure = 'rollback' | 'close';

/** Runs `work` on one connection from knex's pool. `work` opens and commits its own transaction. */
export async function withConnection<T>(
  knex: Knex,
  onFailure: OnFailure,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = (await knex.client.acquireConnection()) as pg.Client; // knex types raw connections as any
  try {
    return await work(client);
  } catch (error) {
    const rolledBack =
      onFailure === 'rollback' &&
      (await client.query('ROLLBACK').then(
        () => true,
        () => false,
      ));
    if (!rolledBack) await client.end().catch(() => undefined);
    throw error;
  } finally {
    await knex.client.releaseConnection(client);
  }
}
