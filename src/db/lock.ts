/**
 * Cross-process mutual exclusion with a session-level PostgreSQL advisory lock, held on a
 * dedicated connection rather than a pooled one: a pooled connection could be handed back to the
 * pool while still holding the lock, or the lock could be taken twice on one session.
 */
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { connectClient } from './pg-client.ts';

/** Advisory lock keys Ward uses. One constant per lock so two features never share one by accident. */
export const LOCK_KEYS = {
  /** Held while the core schema migrates and while the controller applies a plan. */
  reconcile: 0x77617264, // "ward"
  /** Held (transaction-scoped) by CLI scheduling, so two operators never plan from the same stale rows. */
  schedule: 0x77617265,
  /**
   * Held, inside `reconcile`, by a backend whose start checks passed while it applies a plan: what
   * `ward modules restart` takes for a restart under way. `reconcile` alone is also held while a
   * start that will be refused (an orphan) is still checking.
   */
  applying: 0x77617266,
  /**
   * Held (transaction-scoped) by a transaction appending to the audit trail, from reading the
   * chain's last hash until it commits: the chain is one line, so its appends take turns.
   */
  audit: 0x77617267,
} as const;

/** How long a waiter for a lock sleeps between tries. */
const RETRY_MS = 50;

async function tryLock(client: pg.Client, key: number): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
    key,
  ]);
  return rows[0]?.locked === true;
}

export async function withAdvisoryLock<T>(url: string, key: number, work: () => Promise<T>): Promise<T> {
  const client = await connectClient(url, 'ward-lock');
  try {
    // Waits by trying again rather than in pg_advisory_lock: a statement waiting on the server
    // holds a snapshot, and a concurrent index build (a migration the holder may be running)
    // waits for every older snapshot to end, so holder and waiter would wait for each other.
    while (!(await tryLock(client, key))) await sleep(RETRY_MS);
    return await work();
  } finally {
    // Closing the session releases the lock even if the unlock query itself fails.
    await client.end();
  }
}

/**
 * Whether some session of this database holds the lock `key` now (for instance a backend applying
 * its plan, while no backend listens yet). Read from `pg_locks`, without taking it: a bigint key
 * appears there as its high and low 32 bits, with objsubid 1.
 */
export async function lockHeld(knex: Knex, key: number): Promise<boolean> {
  const row = (await knex
    .select(
      knex.raw(
        `exists (select 1 from pg_locks
                  where locktype = 'advisory' and granted and objsubid = 1
                    and database = (select oid from pg_database where datname = current_database())
                    and classid = ?::oid and objid = ?::oid) as held`,
        [Math.floor(key / 2 ** 32), key % 2 ** 32],
      ),
    )
    .first()) as { held: boolean };
  return row.held;
}
