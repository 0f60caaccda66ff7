/**
 * Sign-in throttling: whether a sign-in may check its password now, or how long it must wait.
 * Decisions over in-memory tables and an injected clock; no I/O.
 *
 * Policy:
 * - Per username (lowercased, as sign-in looks users up): the first 5 consecutive failures cost
 *   nothing; after that each further attempt must wait 1 s, 2 s, 4 s, … (at most 15 min) from the
 *   last failure. A successful sign-in resets the username; its failures are forgotten after 15
 *   quiet minutes once the wait has passed (so at the cap the count never resets by itself: one
 *   guess per 15 minutes). Unknown usernames are counted alike, so the answer says nothing of
 *   which exist.
 * - Per client address: at most 100 failed sign-ins in any 15 minutes, whatever the usernames, so
 *   one client cannot spray guesses across many accounts. IPv6 addresses count per /64, the block
 *   one subscriber usually holds; an IPv4-mapped IPv6 address counts as its IPv4 address.
 * - A refused attempt is answered before its password is checked: it costs no scrypt work, tells
 *   nothing (a right password is refused alike) and counts as nothing.
 * - An allowed attempt counts as failed from the moment it is allowed until `succeeded` withdraws
 *   it, so parallel attempts cannot all pass before the first failure is recorded, and one that
 *   dies half-way (an error) still counts.
 * - Each table tracks at most 10,000 keys, dropping the one written longest ago, so an attacker
 *   cannot grow memory without limit (a few MB at most).
 *
 * The tables live in the process: each backend replica throttles on its own, so N replicas allow
 * up to N times the attempts. That is the usual trade-off: no database work per attempt.
 */
import { isIPv4, isIPv6 } from 'node:net';

const FREE_FAILURES = 5;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 15 * 60_000;
const FORGET_AFTER_MS = 15 * 60_000;
const ADDRESS_FAILURES = 100;
const ADDRESS_WINDOW_MS = 15 * 60_000;

export interface SignInRefusal {
  allowed: false;
  /** Which limit refused: the username's or the client address's (the longer wait when both do). */
  reason: 'user' | 'address';
  /** Whole seconds until an attempt can be allowed, at least 1: the Retry-After value. */
  retryAfterSeconds: number;
}

export type SignInDecision = { allowed: true } | SignInRefusal;

export interface SignInThrottle {
  /** Whether a sign-in may check its password now. An allowed attempt counts as failed until `succeeded`. */
  attempt(username: string, address: string): SignInDecision;
  /** The password was right: forgets the username's failures and withdraws the attempt from the address. */
  succeeded(username: string, address: string): void;
}

export interface SignInThrottleOptions {
  now?: () => number;
  /** Most usernames, and most addresses, tracked at once. Default 10,000. */
  maxKeys?: number;
}

interface UserFailures {
  count: number;
  last: number;
}

export function createSignInThrottle(options: SignInThrottleOptions = {}): SignInThrottle {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 10_000;
  const users = new RecentlyWritten<UserFailures>(maxKeys);
  const clients = new RecentlyWritten<number[]>(maxKeys);
  return {
    attempt(username, address) {
      const at = now();
      const user = username.toLowerCase();
      const client = clientKey(address);
      const failures = users.get(user);
      const counted =
        failures !== undefined && at - failures.last < delayMs(failures.count) + FORGET_AFTER_MS
          ? failures
          : null;
      const times = (clients.get(client) ?? []).filter((time) => at - time < ADDRESS_WINDOW_MS);
      const userWait = counted === null ? 0 : userWaitMs(counted, at);
      // At most ADDRESS_FAILURES times are kept, oldest first: the oldest is the one that must expire.
      const addressWait = times.length < ADDRESS_FAILURES ? 0 : times[0]! + ADDRESS_WINDOW_MS - at;
      if (userWait > 0 || addressWait > 0)
        return {
          allowed: false,
          reason: userWait >= addressWait ? 'user' : 'address',
          retryAfterSeconds: Math.ceil(Math.max(userWait, addressWait) / 1000),
        };
      users.set(user, { count: (counted?.count ?? 0) + 1, last: at });
      clients.set(client, [...times, at].slice(-ADDRESS_FAILURES));
      return { allowed: true };
    },
    succeeded(username, address) {
      users.delete(username.toLowerCase());
      clients.get(clientKey(address))?.pop();
    },
  };
}

/** The wait after `count` consecutive failures, from the last one. */
function delayMs(count: number): number {
  return count < FREE_FAILURES ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (count - FREE_FAILURES), MAX_DELAY_MS);
}

function userWaitMs(failures: UserFailures, at: number): number {
  return Math.max(0, failures.last + delayMs(failures.count) - at);
}

/** One key per client: per /64 for IPv6, since rotating through one's own /64 is free. */
function clientKey(address: string): string {
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(address)) return address;
  const [head, tail] = address.replace(/%.*$/, '').split('::');
  // A dotted IPv4 part is the last two groups; the first four, the /64, never include it.
  const groups = (part: string | undefined) =>
    part === undefined || part === ''
      ? []
      : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const [first, last] = [groups(head), groups(tail)];
  const all = [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  const prefix = all.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}

/** A Map holding at most `max` keys: writing one makes it the newest, and the oldest goes first. */
class RecentlyWritten<V> {
  readonly #entries = new Map<string, V>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    // Maps iterate in insertion order, so the first key is the one written longest ago.
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
