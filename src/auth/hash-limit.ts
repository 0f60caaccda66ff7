/**
 * Bounds on password hashing. scrypt (password.ts: some 50 ms of CPU and 32 MiB per hash) runs on
 * libuv's thread pool, four threads by default, the pool that also serves every file read and
 * write. Unbounded, a flood of sign-ins keeps all four threads hashing and document downloads
 * queue behind it (6 ms became 6 s). So:
 *
 * - at most 2 hashes run at once in a process; the others wait their turn, first come first
 *   served (`hashQueue`). That leaves the other threads to file I/O, whoever hashes: sign-in, a
 *   new password, the CLI;
 * - a request that hashes for a client first takes one of 10 admissions (`admissions`): 2
 *   hashing and 8 waiting, about a quarter of a second of queue;
 * - one client address (IPv6 per /64, as the sign-in throttle counts it) holds at most 2 of them,
 *   so a flood from few addresses cannot keep every other client, the owners among them, out;
 * - with none left for it, a request waits for one: a whole shift signing in at 8:00 behind one
 *   address waits its turn instead of being turned away. Each client's requests wait in a line of
 *   their own, and places go to the lines in turn, so one client's flood of requests delays
 *   another's by one turn, not by the whole flood. A browser trusted for its username
 *   (throttle.ts) waits in a line of its own rather than its address's, and goes before the
 *   untrusted: no flood can make it wait for more than the trusted browsers ahead of it. A line
 *   waits as long as it moves; 10 s without a turn, or too many waiting already (100 for one
 *   client, 1,000 in all), and its requests are refused (503 with Retry-After): a queue that no
 *   turn reaches would only make every answer later.
 */
import { clientKey } from './throttle.ts';

/** What a trusted browser's admission key starts with (an address never does). */
export const DEVICE_CLIENT = 'device:';

/** Hashes running at once: half the thread pool. */
export const HASHES_AT_ONCE = 2;
/** Requests admitted to hash at once: those running and a short queue behind them. */
export const HASHING_ADMISSIONS = 10;
/** Admissions one client address may hold at once. */
export const ADMISSIONS_PER_CLIENT = 2;
/**
 * Longest a client's line of waiting requests waits without one of them getting a place. A shift
 * signing in at once behind one address (30 sign-ins, some 1 s of hashing on a small server, many
 * more on a busy one) keeps moving and gets in, however long the whole takes; a line that no turn
 * reaches (the server swamped by a flood from many addresses) is answered 503 rather than held.
 */
export const ADMISSION_WAIT_MS = 10_000;
/** Requests waiting for an admission at once, all clients together. */
export const WAITING_AT_ONCE = 1_000;
/** Requests one client may have waiting at once: a large clinic's shift behind one address. */
export const WAITING_PER_CLIENT = 100;

export interface HashQueue {
  /** Runs `hash` once fewer than the bound are running, in the order the calls came. */
  run<T>(hash: () => Promise<T>): Promise<T>;
}

export function hashQueue(atOnce: number): HashQueue {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    // A waiter takes the place over: `running` stays as it is.
    if (next === undefined) running--;
    else next();
  };
  return {
    async run(hash) {
      if (running < atOnce) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await hash();
      } finally {
        release();
      }
    },
  };
}

export interface AdmissionOptions {
  /** Admissions one client may hold at once. Default ADMISSIONS_PER_CLIENT. */
  perClient?: number;
  /** Longest a client's line waits without moving before all of it gets null. Default ADMISSION_WAIT_MS. */
  waitMs?: number;
  /** Requests that may wait at once, all clients together. Default WAITING_AT_ONCE. */
  waiting?: number;
  /** Requests one client may have waiting at once. Default WAITING_PER_CLIENT. */
  waitingPerClient?: number;
  /** Timers (setTimeout and clearTimeout by default): a test can run them at will. */
  timers?: Timers;
}

export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

const REAL_TIMERS: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export interface Admissions {
  /**
   * A place for a request from `client`, and the function that gives it back (once); null when
   * the client's line stopped moving for the wait, or the waiting room (all of it, or the client's
   * share) is full.
   * `client` is an address (counted as the throttle counts it, IPv6 per /64) or a trusted
   * browser's own key, which then waits in a line of its own.
   */
  enter(client: string): Promise<(() => void) | null>;
}

/** One client's waiting requests, in the order they came, and when it gives up for want of a turn. */
interface Line {
  waiting: ((leave: (() => void) | null) => void)[];
  timer: unknown;
}

/**
 * Places given in turn to the clients that wait (round robin, trusted browsers first), each
 * client's requests in the order they came, so that one client's many requests make another's
 * wait no longer than one turn. A client's line waits as long as it keeps moving: when `waitMs`
 * pass without one of its requests getting a place, every request in it is refused.
 */
export function admissions(places: number, options: AdmissionOptions = {}): Admissions {
  const perClient = options.perClient ?? ADMISSIONS_PER_CLIENT;
  const waitMs = options.waitMs ?? ADMISSION_WAIT_MS;
  const waitingAtOnce = options.waiting ?? WAITING_AT_ONCE;
  const waitingPerClient = options.waitingPerClient ?? WAITING_PER_CLIENT;
  const timers = options.timers ?? REAL_TIMERS;
  let taken = 0;
  let waitingNow = 0;
  const held = new Map<string, number>();
  // Clients with requests waiting, the one served longest ago first.
  const lines = new Map<string, Line>();

  const place = (client: string): (() => void) => {
    taken++;
    held.set(client, (held.get(client) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      taken--;
      const still = (held.get(client) ?? 1) - 1;
      if (still === 0) held.delete(client);
      else held.set(client, still);
      admitNext();
    };
  };

  /** Refuses every request in the client's line: it has not moved for `waitMs`. */
  const giveUp = (client: string) => {
    const line = lines.get(client)!;
    lines.delete(client);
    waitingNow -= line.waiting.length;
    for (const resolve of line.waiting) resolve(null);
  };

  /** The client whose turn it is: trusted browsers first, then the one served longest ago. */
  const nextClient = (): string | undefined => {
    let other: string | undefined;
    for (const client of lines.keys()) {
      if ((held.get(client) ?? 0) >= perClient) continue;
      if (client.startsWith(DEVICE_CLIENT)) return client;
      other ??= client;
    }
    return other;
  };

  const admitNext = () => {
    for (let client = nextClient(); client !== undefined && taken < places; client = nextClient()) {
      const line = lines.get(client)!;
      const resolve = line.waiting.shift()!;
      waitingNow--;
      timers.clear(line.timer);
      // To the back of the turn, if more of its requests wait; the line moved, so its wait starts again.
      lines.delete(client);
      if (line.waiting.length > 0) {
        line.timer = timers.set(() => giveUp(client), waitMs);
        lines.set(client, line);
      }
      resolve(place(client));
    }
  };

  return {
    async enter(address) {
      const client = address.startsWith(DEVICE_CLIENT) ? address : clientKey(address);
      const line = lines.get(client);
      if (taken < places && (held.get(client) ?? 0) < perClient && line === undefined) return place(client);
      if (waitMs <= 0 || waitingNow >= waitingAtOnce || (line?.waiting.length ?? 0) >= waitingPerClient)
        return null;
      return new Promise((resolve) => {
        waitingNow++;
        if (line !== undefined) line.waiting.push(resolve);
        else lines.set(client, { waiting: [resolve], timer: timers.set(() => giveUp(client), waitMs) });
      });
    },
  };
}
