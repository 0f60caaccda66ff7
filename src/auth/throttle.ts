/**
 * Sign-in throttling: whether a sign-in may check its password now, or how long it must wait.
 * Pure decisions over the counts of one attempt's keys and a time; the counts are kept in
 * PostgreSQL (throttle-store.ts), where every backend replica sees them and a restart keeps them.
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
 * Behind one address (a clinic's NAT) everybody is one client, so someone guessing there would
 * make everyone there wait. A browser that has signed in successfully as a username is therefore
 * trusted for it (OWASP's device cookies): its attempts at that username are limited on their own,
 * by the pair rule applied to that browser (`deviceWait`), and none of the four limits above
 * applies to them. Once that browser's own wait is running, it is a client like any other.
 *
 * - A refused attempt is answered before its password is checked: it costs no scrypt work, tells
 *   nothing (a right password is refused alike) and counts as nothing.
 * - An allowed attempt counts as failed from the moment it is allowed until a success withdraws
 *   it, so parallel attempts cannot all pass before the first failure is recorded, and one that
 *   dies half-way (an error) still counts.
 * - Each username's and address's times keep at most 110 entries (the limit and those in flight),
 *   a /48's 1,010, and every row says when it stops mattering (`expiresAtMs`), after which the
 *   store deletes it: what a flood leaves behind is bounded by what it was allowed to try.
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
 * flight (the hashing bound admits 10 at once per backend) must not make it withdraw one the limit needs.
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

/** Consecutive failures of a pair (or of a trusted browser), and when the last one was. */
export interface Failures {
  count: number;
  last: number;
}

/** The keys one attempt is counted under; `network` is null for IPv4. */
export interface SignInKeys {
  pair: string;
  user: string;
  address: string;
  network: string | null;
}

/** What is counted under one attempt's keys: times oldest first. */
export interface SignInCounts {
  pair: Failures | null;
  user: number[];
  address: number[];
  network: number[];
}

/**
 * The keys of an attempt. Each starts with its kind; neither an address nor a username can hold a
 * line feed, so a pair's two parts cannot run together.
 */
export function signInKeys(username: string, address: string): SignInKeys {
  const user = username.toLowerCase();
  const client = clientKey(address);
  const network = networkKey(address);
  return {
    pair: `pair:${client}\n${user}`,
    user: `user:${user}`,
    address: `address:${client}`,
    network: network === null ? null : `network:${network}`,
  };
}

/**
 * Whether an attempt with these counts may check its password at `at`, and the counts to keep:
 * with the attempt counted as a failure when it is allowed, as they were when it is not.
 */
export function decide(counts: SignInCounts, at: number): { decision: SignInDecision; counts: SignInCounts } {
  const counted = pairCounted(counts.pair, at);
  const userTimes = within(counts.user, at, USER_WINDOW_MS);
  const clientTimes = within(counts.address, at, ADDRESS_WINDOW_MS);
  const networkTimes = within(counts.network, at, ADDRESS_WINDOW_MS);
  const waits: Record<SignInLimit, number> = {
    pair: counted === null ? 0 : counted.last + delayMs(counted.count) - at,
    user: userTimes.length < USER_FAILURES || counted === null ? 0 : counted.last + USER_SLOWED_MS - at,
    address: windowWait(clientTimes, ADDRESS_FAILURES, ADDRESS_WINDOW_MS, at),
    network: windowWait(networkTimes, NETWORK_FAILURES, ADDRESS_WINDOW_MS, at),
  };
  const reason = LIMITS.reduce((longest, limit) => (waits[limit] > waits[longest] ? limit : longest));
  if (waits[reason] > 0)
    return {
      decision: { allowed: false, reason, retryAfterSeconds: Math.ceil(waits[reason] / 1000) },
      counts,
    };
  return {
    decision: { allowed: true },
    counts: {
      pair: { count: (counted?.count ?? 0) + 1, last: at },
      user: [...userTimes, at].slice(-USER_FAILURES - IN_FLIGHT),
      address: [...clientTimes, at].slice(-ADDRESS_FAILURES - IN_FLIGHT),
      network: [...networkTimes, at].slice(-NETWORK_FAILURES - IN_FLIGHT),
    },
  };
}

/** The password was right: the pair's failures are forgotten, and the attempt withdrawn from the others. */
export function withdraw(counts: SignInCounts): SignInCounts {
  return {
    pair: null,
    user: counts.user.slice(0, -1),
    address: counts.address.slice(0, -1),
    network: counts.network.slice(0, -1),
  };
}

/**
 * How long a browser trusted for a username must wait before its next attempt counts as trusted:
 * the pair rule (five free failures, then 1 s, 2 s, … up to 15 minutes, forgotten after 15 quiet
 * minutes), over that browser's own failures.
 */
export function deviceWait(failures: Failures, at: number): number {
  const counted = pairCounted(failures, at);
  return counted === null ? 0 : Math.max(0, counted.last + delayMs(counted.count) - at);
}

/** A trusted browser's failures after one more failed attempt at `at`. */
export function deviceFailed(failures: Failures, at: number): Failures {
  return { count: (pairCounted(failures, at)?.count ?? 0) + 1, last: at };
}

/**
 * When a key's row stops mattering, in ms: a pair once its failures are forgotten, a window once
 * its newest time has left it. Deleting it then changes no decision.
 */
export function expiresAtMs(kind: keyof SignInKeys, counts: SignInCounts): number {
  if (kind === 'pair')
    return counts.pair === null ? 0 : counts.pair.last + delayMs(counts.pair.count) + FORGET_AFTER_MS;
  const times = counts[kind];
  const newest = times.length === 0 ? 0 : Math.max(...times);
  return newest + (kind === 'user' ? USER_WINDOW_MS : ADDRESS_WINDOW_MS);
}

/** The failures that still count at `at`, or null once forgotten (or none). */
function pairCounted(failures: Failures | null, at: number): Failures | null {
  return failures !== null && at - failures.last < delayMs(failures.count) + FORGET_AFTER_MS
    ? failures
    : null;
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
