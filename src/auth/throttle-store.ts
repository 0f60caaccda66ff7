/**
 * The sign-in throttle (throttle.ts) over its counts in PostgreSQL (`core_sign_in_count`,
 * `core_sign_in_device`), so that every backend replica counts the same failures and a restart
 * forgets none. Each decision is one short transaction: it locks the rows of the attempt's keys
 * (creating those that do not exist yet, in key order, so that two attempts never wait on each
 * other in a circle), reads them, decides, and writes the counts back only when the attempt is
 * allowed; a refused attempt rolls back and leaves nothing. Parallel attempts, on one replica or
 * several, queue on those row locks, so they cannot all pass before the first failure is recorded.
 *
 * Why not a limiter library with a PostgreSQL store (rate-limiter-flexible's RateLimiterPostgres
 * is the well-kept one): it counts points in fixed windows per key, one limiter per key kind, in a
 * table of its own shape (created at run time unless told it exists). The policy here needs a pair's doubling waits, sliding
 * windows, a success that withdraws its attempt, a refusal that counts as nothing across all four
 * limits at once, and trusted browsers; as four independent limiters a refusal by one would already
 * have counted in the others. The policy stays one pure function, and its storage is one table
 * created by a core migration like every other.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { hashSecret } from './tokens.ts';
import {
  decide,
  deviceFailed,
  deviceWait,
  expiresAtMs,
  signInKeys,
  withdraw,
  type SignInCounts,
  type SignInKeys,
  type SignInRefusal,
} from './throttle.ts';

/** How long a browser stays trusted for a username after its last successful sign-in as it. */
export const DEVICE_TRUST_MS = 90 * 24 * 3_600_000;

/** Expired rows deleted by one allowed attempt: enough to keep up, never a long transaction. */
const PURGE_BATCH = 100;

const DEVICE_PREFIX = 'ward_d_';
const DEVICE_BODY = /^[A-Za-z0-9_-]{43}$/;

/** A browser's device secret: 32 random bytes, of which the database keeps only the SHA-256. */
export const newDeviceSecret = (): string => DEVICE_PREFIX + randomBytes(32).toString('base64url');

/** The stored hash of a well-formed device secret, or null for anything else (never looked up). */
export function deviceHash(secret: string | undefined): Buffer | null {
  if (secret === undefined || !secret.startsWith(DEVICE_PREFIX)) return null;
  return DEVICE_BODY.test(secret.slice(DEVICE_PREFIX.length)) ? hashSecret(secret) : null;
}

/** An allowed attempt says whether a trusted browser made it, which is what a success then resets. */
export type SignInAttempt = { allowed: true; trusted: boolean } | SignInRefusal;

export interface SignInThrottle {
  /**
   * Whether a sign-in may check its password now. `device` is the hash of the browser's device
   * secret, if it sent one: trusted for the username, that browser is limited on its own. An
   * allowed attempt counts as failed until `succeeded`.
   */
  attempt(username: string, address: string, device: Buffer | null): Promise<SignInAttempt>;
  /**
   * The password was right: resets what the attempt counted, and trusts the browser `trust` (a
   * device hash) for the username from now on, when given.
   */
  succeeded(username: string, address: string, trusted: boolean, trust: Buffer | null): Promise<void>;
  /** Whether the browser is trusted for the username now (no lock: for choosing a queue). */
  trusted(username: string, device: Buffer): Promise<boolean>;
  /** Whether any username trusts the browser now, so that its secret can be kept. */
  known(device: Buffer): Promise<boolean>;
}

export interface SignInThrottleOptions {
  now?: () => number;
}

const KINDS = ['pair', 'user', 'address', 'network'] as const;

interface CountRow {
  key: string;
  state: unknown;
}

export function postgresSignInThrottle(knex: Knex, options: SignInThrottleOptions = {}): SignInThrottle {
  const now = options.now ?? Date.now;

  const deviceRow = (trx: Knex.Transaction, username: string, device: Buffer, at: number) =>
    trx('core_sign_in_device')
      .where({ device_hash: device, username: username.toLowerCase() })
      .andWhere('trusted_until', '>', new Date(at))
      .forUpdate()
      .first('failures', 'last_failure_ms') as Promise<
      { failures: number; last_failure_ms: string | number } | undefined
    >;

  /** Counts an attempt by a trusted browser if its own wait allows one; false when it does not. */
  const trustedAttempt = async (trx: Knex.Transaction, username: string, device: Buffer, at: number) => {
    const row = await deviceRow(trx, username, device, at);
    if (row === undefined) return false;
    const failures = { count: row.failures, last: Number(row.last_failure_ms) };
    if (deviceWait(failures, at) > 0) return false;
    const next = deviceFailed(failures, at);
    await trx('core_sign_in_device')
      .where({ device_hash: device, username: username.toLowerCase() })
      .update({ failures: next.count, last_failure_ms: next.last });
    return true;
  };

  return {
    async attempt(username, address, device) {
      const at = now();
      const trx = await knex.transaction();
      try {
        await relaxed(trx);
        if (device !== null && (await trustedAttempt(trx, username, device, at))) {
          await trx.commit();
          return { allowed: true, trusted: true };
        }
        const keys = signInKeys(username, address);
        const { decision, counts } = decide(await lockCounts(trx, keys), at);
        if (!decision.allowed) {
          await trx.rollback();
          return decision;
        }
        await writeCounts(trx, keys, counts);
        await purge(trx, at);
        await trx.commit();
        return { allowed: true, trusted: false };
      } catch (error) {
        await trx.rollback();
        throw error;
      }
    },

    async succeeded(username, address, trusted, trust) {
      const at = now();
      await knex.transaction(async (trx) => {
        await relaxed(trx);
        // The browser's row before the counts' rows, in the order `attempt` locks them, so that
        // the two never wait on each other.
        if (trust !== null)
          await trx('core_sign_in_device')
            .insert({
              device_hash: trust,
              username: username.toLowerCase(),
              failures: 0,
              last_failure_ms: 0,
              trusted_until: new Date(at + DEVICE_TRUST_MS),
            })
            .onConflict(['device_hash', 'username'])
            .merge();
        // A trusted browser's attempt was counted on that browser, which `trust` resets, not on the keys.
        if (!trusted) {
          const keys = signInKeys(username, address);
          await writeCounts(trx, keys, withdraw(await lockCounts(trx, keys)));
        }
      });
    },

    async trusted(username, device) {
      const at = now();
      const row = await knex('core_sign_in_device')
        .where({ device_hash: device, username: username.toLowerCase() })
        .andWhere('trusted_until', '>', new Date(at))
        .first('failures', 'last_failure_ms');
      return (
        row !== undefined &&
        deviceWait({ count: row.failures as number, last: Number(row.last_failure_ms) }, at) === 0
      );
    },

    async known(device) {
      const row = await knex('core_sign_in_device')
        .where({ device_hash: device })
        .andWhere('trusted_until', '>', new Date(now()))
        .first(knex.raw('1 as one'));
      return row !== undefined;
    },
  };
}

/**
 * The transaction commits without waiting for its WAL to reach the disk: counts lost to a crash
 * of PostgreSQL itself are at most its last fraction of a second, a few guesses, while a flush per
 * sign-in would make every other commit wait behind a flood's (document downloads among them).
 */
async function relaxed(trx: Knex.Transaction): Promise<void> {
  await trx.raw('set local synchronous_commit = off');
}

/**
 * Locks the rows of the attempt's keys, creating empty ones where there are none (a refused
 * attempt's rollback removes those again), and reads what they count.
 */
async function lockCounts(trx: Knex.Transaction, keys: SignInKeys): Promise<SignInCounts> {
  const names = KINDS.flatMap((kind) => (keys[kind] === null ? [] : [keys[kind]])).sort();
  const { rows } = (await trx.raw(
    `insert into core_sign_in_count (key, state, expires_at)
       select key, 'null'::jsonb, 'epoch'::timestamptz from unnest(?::text[]) with ordinality as k(key, n) order by n
     on conflict (key) do update set key = excluded.key
     returning key, state`,
    [names],
  )) as { rows: CountRow[] };
  const state = new Map(rows.map((row) => [row.key, row.state]));
  const times = (key: string | null) => {
    const value = key === null ? null : state.get(key);
    return Array.isArray(value) ? (value as number[]) : [];
  };
  const pair = state.get(keys.pair) as { count: number; last: number } | null | undefined;
  return {
    pair: pair ?? null,
    user: times(keys.user),
    address: times(keys.address),
    network: times(keys.network),
  };
}

/** Writes the counts of each key; a key that counts nothing any more loses its row. */
async function writeCounts(trx: Knex.Transaction, keys: SignInKeys, counts: SignInCounts): Promise<void> {
  const kept: { key: string; state: string; expires_at: Date }[] = [];
  const emptied: string[] = [];
  for (const kind of KINDS) {
    const key = keys[kind];
    if (key === null) continue;
    const value = kind === 'pair' ? counts.pair : counts[kind];
    if (value === null || (Array.isArray(value) && value.length === 0)) emptied.push(key);
    else kept.push({ key, state: JSON.stringify(value), expires_at: new Date(expiresAtMs(kind, counts)) });
  }
  if (kept.length > 0) await trx('core_sign_in_count').insert(kept).onConflict('key').merge();
  if (emptied.length > 0) await trx('core_sign_in_count').whereIn('key', emptied).del();
}

/** Deletes a batch of rows that no longer matter, skipping any another attempt holds. */
async function purge(trx: Knex.Transaction, at: number): Promise<void> {
  const before = new Date(at);
  await trx.raw(
    `delete from core_sign_in_count where key in (
       select key from core_sign_in_count where expires_at < ? limit ? for update skip locked)`,
    [before, PURGE_BATCH],
  );
  await trx.raw(
    `delete from core_sign_in_device where (device_hash, username) in (
       select device_hash, username from core_sign_in_device where trusted_until < ? limit ? for update skip locked)`,
    [before, PURGE_BATCH],
  );
}
