/**
 * Sign-in throttling: whether a sign-in may check its password now, or how long it must wait.
 * Decisions over in-memory tables and an injected clock; no I/O.
 *
 * Guessing is throttled without letting anyone lock an account's owner out: a limit on a username
 * alone (five failures, then wait) would let anyone keep `admin` shut out by failing on purpose.
 * So the failures that make a client wait are counted per (client address, username) pair, as
 * OWASP's authentication and credential-stuffing guidance and NIST SP 800-63B (rate limiting)
 * advise, and a success forgets only that pair's failures. Four limits, the longest wait wins:
 *
 * - Per address and username (the username lowercased, as sign-in looks users up): the first 5
 *   consecutive failures cost nothing; after that each further attempt must wait 1 s, 2 s, 4 s, …
 *   (at most 15 min) from the last failure. A success resets the pair; its failures are forgotten
 *   after 15 quiet minutes once the wait has passed (so at the cap one guess per 15 minutes).
 *   Unknown usernames are counted alike, so the answer says nothing of which exist.
 * - Per username, from all addresses: a ceiling for guessing spread over many addresses. Once the
 *   username has had 100 failures within the last hour (far more than its people mistype), every
 *   address must leave at least a minute between its attempts at it. That is the floor: the owner
 *   can always try once a minute from their own address, and at once from an address that has not
 *   tried for a minute, while a guesser with N addresses gets at most N guesses a minute (fewer as
 *   each pair's own wait grows). NIST caps consecutive failures on an account at 100; a hard stop
 *   there would be the very lockout avoided here, so from 100 an hour every address is slowed
 *   instead while its own waits keep growing, the increasing waits NIST offers to keep the owner
 *   in. A success does not lift the ceiling: the guessing elsewhere goes on.
 * - Per client address: at most 100 failed sign-ins in any 15 minutes, whatever the usernames, so
 *   one client cannot spray guesses across many accounts. IPv6 addresses count per /64, the block
 *   one subscriber usually holds; an IPv4-mapped IPv6 address counts as its IPv4 address.
 * - Per IPv6 /48 (a site's usual allocation, which holds 65,536 /64s): at most 1,000 failed
 *   sign-ins in any 15 minutes, ten addresses' worth, so that a client hopping from /64 to /64
 *   within its site does not get 100 more guesses with each. IPv4 has no such wider limit: a /24
 *   holds unrelated clients as often as not.
 *
 * - A refused attempt is answered before its password is checked: it costs no scrypt work, tells
 *   nothing (a right password is refused alike) and counts as nothing.
 * - An allowed attempt counts as failed from the moment it is allowed until `succeeded` withdraws
 *   it, so parallel attempts cannot all pass before the first failure is recorded, and one that
 *   dies half-way (an error) still counts.
 * - Each table (pairs, usernames, addresses) tracks at most 10,000 keys, dropping the one written
 *   longest ago, so an attacker cannot grow memory without limit: about 20 MB at the very worst
 *   (each username and address keeps at most 110 times), a few MB in any real attack; the /48s, a
 *   tenth as many keys holding ten times the times, add as much again. Forgetting a key only ever
 *   lets attempts through sooner, so it can never lock anyone out.
 *
 * Behind one address (a clinic's NAT, or a reverse proxy that Ward is not told to trust) everybody
 * is one client: someone guessing there makes everyone there wait for that username.
 *
 * The tables live in the process: each backend replica throttles on its own, so N replicas allow
 * up to N times the attempts. That is the usual trade-off: no database work per attempt.
 */
import { isIPv4, isIPv6 } from 'node:net';

const FREE_FAILURES = 5;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 15 * 60_000;
const FORGET_AFTER_MS = 15 * 60_000;
const USER_FAILURES = 100;
const USER_WINDOW_MS = 60 * 60_000;
const USER_SLOWED_MS = 60_000;
const ADDRESS_FAILURES = 100;
const ADDRESS_WINDOW_MS = 15 * 60_000;
const NETWORK_FAILURES = 10 * ADDRESS_FAILURES;
/**
 * Times kept beyond a window's limit: a success withdraws the newest time, and sign-ins still in
 * flight (the hashing bound admits 10 at once) must not make it withdraw one the limit needs.
 */
const IN_FLIGHT = 10;

/** The limits, in the order that wins a tie: this username from this address, the username, the address, its /48. */
const LIMITS = ['pair', 'user', 'address', 'network'] as const;
export type SignInLimit = (typeof LIMITS)[number];

export interface SignInRefusal {
  allowed: false;
  /** Which limit refused (the one with the longest wait when several do). */
  reason: SignInLimit;
  /** Whole seconds until an attempt can be allowed, at least 1: the Retry-After value. */
  retryAfterSeconds: number;
}

export type SignInDecision = { allowed: true } | SignInRefusal;

export interface SignInThrottle {
  /** Whether a sign-in may check its password now. An allowed attempt counts as failed until `succeeded`. */
  attempt(username: string, address: string): SignInDecision;
  /** The password was right: forgets the pair's failures and withdraws the attempt from the username's and address's counts. */
  succeeded(username: string, address: string): void;
}

export interface SignInThrottleOptions {
  now?: () => number;
  /** Most pairs, most usernames and most addresses tracked at once. Default 10,000 of each. */
  maxKeys?: number;
}

interface PairFailures {
  count: number;
  last: number;
}

export function createSignInThrottle(options: SignInThrottleOptions = {}): SignInThrottle {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 10_000;
  const pairs = new RecentlyWritten<PairFailures>(maxKeys);
  const users = new RecentlyWritten<number[]>(maxKeys);
  const clients = new RecentlyWritten<number[]>(maxKeys);
  const networks = new RecentlyWritten<number[]>(Math.max(1, Math.floor(maxKeys / 10)));
  return {
    attempt(username, address) {
      const at = now();
      const user = username.toLowerCase();
      const client = clientKey(address);
      const pair = pairKey(client, user);
      const failures = pairs.get(pair);
      const counted =
        failures !== undefined && at - failures.last < delayMs(failures.count) + FORGET_AFTER_MS
          ? failures
          : null;
      const userTimes = within(users.get(user), at, USER_WINDOW_MS);
      const clientTimes = within(clients.get(client), at, ADDRESS_WINDOW_MS);
      const network = networkKey(address);
      const networkTimes = network === null ? [] : within(networks.get(network), at, ADDRESS_WINDOW_MS);
      const waits: Record<SignInLimit, number> = {
        pair: counted === null ? 0 : counted.last + delayMs(counted.count) - at,
        user: userTimes.length < USER_FAILURES || counted === null ? 0 : counted.last + USER_SLOWED_MS - at,
        address: windowWait(clientTimes, ADDRESS_FAILURES, ADDRESS_WINDOW_MS, at),
        network: windowWait(networkTimes, NETWORK_FAILURES, ADDRESS_WINDOW_MS, at),
      };
      const reason = LIMITS.reduce((longest, limit) => (waits[limit] > waits[longest] ? limit : longest));
      if (waits[reason] > 0)
        return { allowed: false, reason, retryAfterSeconds: Math.ceil(waits[reason] / 1000) };
      pairs.set(pair, { count: (counted?.count ?? 0) + 1, last: at });
      users.set(user, [...userTimes, at].slice(-USER_FAILURES - IN_FLIGHT));
      clients.set(client, [...clientTimes, at].slice(-ADDRESS_FAILURES - IN_FLIGHT));
      if (network !== null) networks.set(network, [...networkTimes, at].slice(-NETWORK_FAILURES - IN_FLIGHT));
      return { allowed: true };
    },
    succeeded(username, address) {
      const user = username.toLowerCase();
      const client = clientKey(address);
      pairs.delete(pairKey(client, user));
      users.get(user)?.pop();
      clients.get(client)?.pop();
      const network = networkKey(address);
      if (network !== null) networks.get(network)?.pop();
    },
  };
}

/** The wait after `count` consecutive failures, from the last one. */
function delayMs(count: number): number {
  return count < FREE_FAILURES ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (count - FREE_FAILURES), MAX_DELAY_MS);
}

/** The times (oldest first) less than `window` ago. */
function within(times: readonly number[] | undefined, at: number, window: number): number[] {
  return (times ?? []).filter((time) => at - time < window);
}

/** How long until fewer than `limit` of `times` (oldest first, all in the window) are in it. */
function windowWait(times: readonly number[], limit: number, window: number, at: number): number {
  return times.length < limit ? 0 : times[times.length - limit]! + window - at;
}

/** Neither an address nor a header value can hold a line feed, so the two parts cannot run together. */
const pairKey = (client: string, user: string): string => `${client}\n${user}`;

/**
 * One key per client: per /64 for IPv6, since rotating through one's own /64 is free. Admissions
 * to hash (hash-limit.ts) are held per client alike.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  return isIPv6(address) ? ipv6Prefix(address, 64) : address;
}

/** The /48 of an IPv6 client (not an IPv4-mapped one); null for IPv4. */
function networkKey(address: string): string | null {
  const mapped = /^::ffff:(.+)$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return null;
  return isIPv6(address) ? ipv6Prefix(address, 48) : null;
}

/** The first `bits` (a multiple of 16, at most 64) of an IPv6 address, as `a:b:c::/bits`. */
function ipv6Prefix(address: string, bits: 48 | 64): string {
  const [head, tail] = address.replace(/%.*$/, '').split('::');
  // A dotted IPv4 part is the last two groups; the first four, the /64, never include it.
  const groups = (part: string | undefined) =>
    part === undefined || part === ''
      ? []
      : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const [first, last] = [groups(head), groups(tail)];
  const all = [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  const prefix = all.slice(0, bits / 16).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/${bits}`;
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
