/**
 * `ward serve` outside a container: it does what the container runtime does for a backend
 * process. It starts one, and starts it again whenever it exits — at once after a requested
 * restart (exit 0), with exponential back-off when it keeps failing (a start refused because of
 * orphan modules must not spin). SIGTERM/SIGINT to the supervisor are passed on; it exits once the
 * backend has.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from './logger.ts';

/** A backend that ran at least this long before failing counts as a fresh start, not a failure in a row. */
const STABLE_MS = 10_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

/** Pure: how long to wait before the next start, given the failures in a row so far. */
export function restartDelay(failuresInARow: number): number {
  if (failuresInARow <= 0) return 0;
  return Math.min(FIRST_DELAY_MS * 2 ** (failuresInARow - 1), MAX_DELAY_MS);
}

export interface Supervised {
  /** Restart the backend now (used by --watch). */
  restart(): void;
  /** Resolves when the supervisor has stopped (after a signal and the backend's exit). */
  done: Promise<void>;
}

export function supervise(command: string, args: string[], logger: Logger): Supervised {
  let child: ChildProcess | null = null;
  let stopping = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const start = () => {
    const startedAt = Date.now();
    // The IPC channel is only a lifeline: the backend stops when it closes (see backend-main.ts).
    const current = spawn(command, args, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    child = current;
    current.on('exit', (code, signal) => {
      child = null;
      if (stopping) return finish();
      const failed = code !== 0 && Date.now() - startedAt < STABLE_MS;
      failures = failed ? failures + 1 : 0;
      const delay = restartDelay(failures);
      logger[failed ? 'warn' : 'info'](
        { code, signal, delayMs: delay, failuresInARow: failures },
        `backend exited (${signal ?? code}); starting it again${delay > 0 ? ` in ${delay} ms` : ''}`,
      );
      timer = setTimeout(start, delay);
    });
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    clearTimeout(timer);
    if (child === null) finish();
    else child.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGTERM'));
  start();
  return {
    restart: () => {
      if (child !== null && !stopping) child.kill('SIGTERM');
    },
    done,
  };
}
