/**
 * A dedicated connection that LISTENs on `ward_auth` and feeds the principal cache. It reconnects
 * with back-off when the connection drops; between the drop and the next successful LISTEN the
 * cache is disabled (every request reads the database), because notifications sent meanwhile are
 * lost and a cached principal could be stale.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import type { PrincipalCache } from './principal-cache.ts';

export const AUTH_CHANNEL = 'ward_auth';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export interface ChangeListener {
  /** Resolves once LISTEN is active, or rejects with the first connection error (the listener keeps retrying). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function listenForAuthChanges(knex: Knex, cache: PrincipalCache, logger: Logger): ChangeListener {
  // A raw connection from knex's client, outside the pool: same settings, and LISTEN state never
  // leaks into a pooled connection that a query would reuse.
  const client = knex.client as Knex.Client;
  let connection: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let delay = RETRY_MIN_MS;
  let settle: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // Nobody needs to await `ready`; an unobserved rejection must not crash the process.
  ready.catch(() => undefined);

  const down = (error: unknown) => {
    cache.setEnabled(false);
    const old = connection;
    connection = null;
    if (old !== null) void client.destroyRawConnection(old).catch(() => undefined);
    if (closed) return;
    logger.warn({ err: error, retryInMs: delay }, 'auth change listener lost; permission cache disabled');
    settle?.reject(error);
    settle = null;
    retry = setTimeout(connect, delay);
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  };

  async function connect(): Promise<void> {
    retry = null;
    let candidate: pg.Client | null = null;
    try {
      candidate = (await client.acquireRawConnection()) as pg.Client;
      if (closed) {
        await client.destroyRawConnection(candidate);
        return;
      }
      const current = candidate;
      current.on('notification', (message) => cache.applyNotification(message.payload ?? '*'));
      // Errors before LISTEN succeeds are the catch block's; after, the connection is `current`.
      current.on('error', (error) => current === connection && down(error));
      current.on('end', () => current === connection && down(new Error('connection ended')));
      await candidate.query(`LISTEN ${AUTH_CHANNEL}`);
      connection = candidate;
      delay = RETRY_MIN_MS;
      cache.setEnabled(true);
      settle?.resolve();
      settle = null;
    } catch (error) {
      if (candidate !== null) void client.destroyRawConnection(candidate).catch(() => undefined);
      down(error);
    }
  }

  void connect();
  return {
    ready,
    async close() {
      closed = true;
      cache.setEnabled(false);
      if (retry !== null) clearTimeout(retry);
      const open = connection;
      connection = null;
      if (open !== null) await client.destroyRawConnection(open).catch(() => undefined);
    },
  };
}
