/**
 * `ward serve` outside a container: it does what the container runtime does for a backend
 * process. It starts one, and starts it again whenever it exits — at once after a requested
 * restart (exit 0), with exponential back-off when it keeps failing (a start refused because of
 * orphan modules must not spin). While it backs off, `wake` (something that could fix the start
 * changed) starts one at once. A first backend whose address is taken (EXIT_ADDRESS_TAKEN) is not
 * started again: the supervisor stops. Stopping it passes the signal on; it is done once the backend has
 * exited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../logger.ts';
import { EXIT_ADDRESS_TAKEN, isWardMessage, type ToBackend } from './backend-ipc.ts';

/**
 * A backend that served at least this long before failing counts as a fresh start, not a failure in
 * a row. Counted from when it serves, not from its start: on a loaded machine a start that is
 * refused (orphan modules) can take longer than this, and must still back off.
 */
const STABLE_MS = 10_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

/** Pure: how long to wait before the next start, given the failures in a row so far. */
export function restartDelay(failuresInARow: number): number {
  if (failuresInARow <= 0) return 0;
  return Math.min(FIRST_DELAY_MS * 2 ** (failuresInARow - 1), MAX_DELAY_MS);
}

/** Calls `then` once when `child` exits, or when it could not be started (no 'exit' follows then). */
function exitedOrNeverStarted(
  child: ChildProcess,
  then: (code: number | null, signal: NodeJS.Signals | null) => void,
): void {
  let called = false;
  const once = (code: number | null, signal: NodeJS.Signals | null) => {
    if (called) return;
    called = true;
    then(code, signal);
  };
  child.once('exit', once);
  child.once('error', () => {
    if (child.pid === undefined) once(null, null);
  });
}

export interface Supervised {
  /** Ask the backend to restart (used by --watch); like every requested restart, it runs the preflight first. */
  restart(): void;
  /**
   * Something that could fix a failing start changed (`reason` says what): if the supervisor is
   * backing off, it starts the backend now; if a start is under way and fails, the next one follows
   * at once.
   */
  wake(reason: string): void;
  /** Pass `signal` to the backend; `done` resolves once it has exited. */
  stop(signal: NodeJS.Signals): void;
  /** The status for the process: 0 once stopped, 1 when the backend's address was taken. */
  done: Promise<number>;
}

export function supervise(command: string, args: string[], logger: Logger): Supervised {
  let child: ChildProcess | null = null;
  let stopping = false;
  let failures = 0;
  /** Set while a start waits out its back-off. */
  let timer: NodeJS.Timeout | undefined;
  /** `wake` was called since the current start began. */
  let wokenSinceStart = false;
  /** A backend of this supervisor has served at least once. */
  let served = false;
  let status = 0;
  let finish: (status: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finish = resolve));
  const ended = () => finish(status);

  /**
   * Starts the next backend once `delay` has passed by the wall clock, which the supervisor's log
   * timestamps use: a timer alone may fire a little early by that clock.
   */
  const startIn = (delay: number) => {
    const due = Date.now() + delay;
    const fire = () => {
      const left = due - Date.now();
      if (left > 0) return void (timer = setTimeout(fire, left));
      timer = undefined;
      start();
    };
    timer = setTimeout(fire, delay);
  };

  const start = () => {
    wokenSinceStart = false;
    logger.info({ failuresInARow: failures }, 'starting the backend');
    let servingSince: number | undefined;
    // The IPC channel is a lifeline (the backend stops when it closes, see backend-main.ts) and
    // carries the messages of backend-ipc.ts.
    const current = spawn(command, args, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    child = current;
    // A process that cannot be started, or a message to one that just died: without a listener,
    // either would end the supervisor. Its exit is handled as usual.
    current.on('error', (error) => logger.error({ err: error, pid: current.pid }, 'backend process error'));
    current.on('message', (message) => {
      if (!isWardMessage(message, 'serving')) return;
      served = true;
      servingSince ??= Date.now();
    });
    exitedOrNeverStarted(current, (code, signal) => {
      child = null;
      if (stopping) return ended();
      // Taken at the first start, the address is someone else's (a second `ward serve`): give up.
      // Taken later, something grabbed it while this backend restarted: back off and try again.
      if (code === EXIT_ADDRESS_TAKEN && !served) {
        logger.error(
          { code },
          'the backend cannot listen: its address is in use (see its error above); not starting it again',
        );
        stopping = true;
        status = 1;
        return ended();
      }
      const failed = code !== 0 && (servingSince === undefined || Date.now() - servingSince < STABLE_MS);
      failures = failed ? failures + 1 : 0;
      // A fix that landed while this backend was starting was not seen by it: try it now.
      const delay = wokenSinceStart ? 0 : restartDelay(failures);
      logger[failed ? 'warn' : 'info'](
        { code, signal, delayMs: delay, failuresInARow: failures },
        `backend exited (${signal ?? code}); starting it again${delay > 0 ? ` in ${delay} ms` : ''}`,
      );
      startIn(delay);
    });
  };

  start();
  return {
    restart: () => {
      if (child === null || stopping) return;
      // Over IPC, the backend checks its next start first; a process without the channel cannot.
      if (child.connected) child.send({ ward: 'restart' } satisfies ToBackend, () => undefined);
      else child.kill('SIGTERM');
    },
    wake: (reason) => {
      if (stopping) return;
      if (timer === undefined) return void (wokenSinceStart = true);
      clearTimeout(timer);
      timer = undefined;
      logger.info({ reason }, `${reason}; starting the backend now instead of waiting out the back-off`);
      start();
    },
    stop: (signal) => {
      if (stopping) return;
      stopping = true;
      clearTimeout(timer);
      if (child === null) ended();
      else child.kill(signal);
    },
    done,
  };
}
