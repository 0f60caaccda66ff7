/**
 * Cross-process mutual exclusion with a session-level PostgreSQL advisory lock, held on a
 * dedicated connection, or on one checked out of a pool for as long as it is held (and unlocked
 * before it goes back): a pooled connection must never go back to the pool still holding the
 * lock, nor the lock be taken twice on one session.
 */
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { databaseError } from './connection.ts';
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

async function tryLock(client: pg.ClientBase, key: number): Promise<boolean> {
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
 * `withAdvisoryLock` on a connection of `pool`, which `work` gets to query on: a backend's start
 * takes its lock and runs its checks on the one connection its pool already opened, rather than
 * paying a second handshake. The connection goes back to the pool unlocked, or is closed (which
 * releases the lock) if the unlock fails.
 */
export async function withPooledAdvisoryLock<T>(
  pool: pg.Pool,
  url: string,
  key: number,
  work: (session: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const session = await pool.connect().catch((error: unknown) => {
    throw databaseError(error, url);
  });
  // pg-pool stops listening for a checked-out client's errors: a server ending this session mid-work
  // (which releases the lock) must fail the work's next query, not crash the process unhandled.
  const lost = () => undefined;
  session.on('error', lost);
  let locked = false;
  try {
    // Tries again rather than waiting in pg_advisory_lock, as withAdvisoryLock does and for its reason.
    while (!(await tryLock(session, key))) await sleep(RETRY_MS);
    locked = true;
    return await work(session);
  } finally {
    const unlocked =
      locked &&
      (await session.query<{ released: boolean }>('select pg_advisory_unlock($1) as released', [key]).then(
        (result) => result.rows[0]?.released === true,
        () => false,
      ));
    session.off('error', lost);
    session.release(!unlocked);
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
