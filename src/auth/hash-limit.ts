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
 *   hashing and 8 waiting, about a quarter of a second of queue. With none left it is refused at
 *   once (503 with Retry-After) rather than queued: answering "busy" costs nothing, and a queue
 *   that grows with the flood only makes every answer later;
 * - one client address (IPv6 per /64, as the sign-in throttle counts it) holds at most 2 of them,
 *   so a flood from few addresses cannot keep every other client, the owners among them, out.
 *   Many addresses still can: the address limits of the throttle then slow each of them.
 */
import { clientKey } from './throttle.ts';

/** Hashes running at once: half the thread pool. */
export const HASHES_AT_ONCE = 2;
/** Requests admitted to hash at once: those running and a short queue behind them. */
export const HASHING_ADMISSIONS = 10;
/** Admissions one client address may hold at once. */
export const ADMISSIONS_PER_CLIENT = 2;

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

export interface Admissions {
  /**
   * A place for a request from `address`, and the function that gives it back (once), or null
   * when all are taken or that client already holds its share.
   */
  enter(address: string): (() => void) | null;
}

export function admissions(places: number, perClient = ADMISSIONS_PER_CLIENT): Admissions {
  let taken = 0;
  const held = new Map<string, number>();
  return {
    enter(address) {
      const client = clientKey(address);
      const mine = held.get(client) ?? 0;
      if (taken >= places || mine >= perClient) return null;
      taken++;
      held.set(client, mine + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        taken--;
        const still = (held.get(client) ?? 1) - 1;
        if (still === 0) held.delete(client);
        else held.set(client, still);
      };
    },
  };
}
