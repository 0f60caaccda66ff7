/**
 * A dedicated connection that LISTENs on `ward_auth` and feeds the principal cache. It reconnects
 * with back-off when the connection drops; between the drop and the next successful LISTEN the
 * cache is disabled (every request reads the database), because notifications sent meanwhile are
 * lost and a cached principal could be stale.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import { listen, type Listener } from '../db/listener.ts';
import { connectClient } from '../db/pg-client.ts';
import type { Logger } from '../logger.ts';
import type { PrincipalCache } from './principal-cache.ts';

export const AUTH_CHANNEL = 'ward_auth';

export type ChangeListener = Listener;

/**
 * `db`: the database's URL (a pg client of its own, so that a backend listens before knex is
 * loaded), or a knex whose client opens a raw connection outside its pool, with the pool's settings.
 */
export function listenForAuthChanges(
  db: Knex | string,
  cache: PrincipalCache,
  logger: Logger,
): ChangeListener {
  const client = typeof db === 'string' ? null : (db.client as Knex.Client);
  const listener = listen({
    channel: AUTH_CHANNEL,
    open: async () =>
      client === null ? connectClient(db as string) : ((await client.acquireRawConnection()) as pg.Client),
    release: async (connection) => {
      if (client === null) await connection.end();
      else await client.destroyRawConnection(connection);
    },
    onNotification: (payload) => cache.applyNotification(payload),
    onUp: () => cache.setEnabled(true),
    onDown: (error, retryInMs) => {
      cache.setEnabled(false);
      logger.warn({ err: error, retryInMs }, 'auth change listener lost; permission cache disabled');
    },
  });
  return {
    ready: listener.ready,
    async close() {
      cache.setEnabled(false);
      await listener.close();
    },
  };
}
