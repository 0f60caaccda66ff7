/**
 * A dedicated connection that LISTENs on `ward_auth` and feeds the principal cache. It reconnects
 * with back-off when the connection drops; between the drop and the next successful LISTEN the
 * cache is disabled (every request reads the database), because notifications sent meanwhile are
 * lost and a cached principal could be stale.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import { listen, type Listener } from '../db/listener.ts';
import type { Logger } from '../logger.ts';
import type { PrincipalCache } from './principal-cache.ts';

export const AUTH_CHANNEL = 'ward_auth';

export type ChangeListener = Listener;

export function listenForAuthChanges(knex: Knex, cache: PrincipalCache, logger: Logger): ChangeListener {
  // A raw connection from knex's client, outside the pool: the pool's settings.
  const client = knex.client as Knex.Client;
  const listener = listen({
    channel: AUTH_CHANNEL,
    open: async () => (await client.acquireRawConnection()) as pg.Client,
    release: (connection) => client.destroyRawConnection(connection),
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
