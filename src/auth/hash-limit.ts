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
 *   that grows with the flood only makes every answer later.
 */

/** Hashes running at once: half the thread pool. */
export const HASHES_AT_ONCE = 2;
/** Requests admitted to hash at once: those running and a short queue behind them. */
export const HASHING_ADMISSIONS = 10;

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
  /** A place, and the function that gives it back (once), or null when all are taken. */
  enter(): (() => void) | null;
}

export function admissions(places: number): Admissions {
  let taken = 0;
  return {
    enter() {
      if (taken >= places) return null;
      taken++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        taken--;
      };
    },
  };
}
