/**
 * The database pool as an operator watches it: connections in use, idle, being opened, the pool's
 * size, and requests waiting for a connection (the first sign the pool is too small or queries
 * are slow). Read from knex's pool (tarn) at each scrape, so serving a request pays nothing for it.
 */
import type { Knex } from 'knex';
import { metrics } from './registry.ts';

/** The part of tarn's pool that is read; knex types its client as `any`. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingCreates(): number;
  numPendingAcquires(): number;
  max: number;
}

let watched: Knex | null = null;

const poolOf = (knex: Knex | null): TarnPool | null =>
  ((knex?.client as { pool?: TarnPool | null } | undefined)?.pool ?? null) as TarnPool | null;

metrics.gauge<'state'>({
  name: 'ward_db_pool_connections',
  help: 'Connections of the database pool: used (lent to a query or transaction), free (idle), pending (being opened).',
  labelNames: ['state'],
  collect: () => {
    const pool = poolOf(watched);
    if (pool === null) return [];
    return [
      { labels: { state: 'used' }, value: pool.numUsed() },
      { labels: { state: 'free' }, value: pool.numFree() },
      { labels: { state: 'pending' }, value: pool.numPendingCreates() },
    ];
  },
});

metrics.gauge({
  name: 'ward_db_pool_max_connections',
  help: 'The most connections the database pool opens.',
  collect: () => {
    const pool = poolOf(watched);
    return pool === null ? [] : [{ value: pool.max }];
  },
});

metrics.gauge({
  name: 'ward_db_pool_waiting_requests',
  help: 'Queries and transactions waiting for a free connection of the pool.',
  collect: () => {
    const pool = poolOf(watched);
    return pool === null ? [] : [{ value: pool.numPendingAcquires() }];
  },
});

/** Reports `knex`'s pool from now on (a backend has one); the returned function stops it. */
export function watchPool(knex: Knex): () => void {
  watched = knex;
  return () => {
    if (watched === knex) watched = null;
  };
}
