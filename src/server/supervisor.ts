/**
 * `ward serve` outside a container: it does what the container runtime does for a backend
 * process. It starts one, and starts it again whenever it exits — at once after a requested
 * restart (exit 0), with exponential back-off when it keeps failing (a start refused because of
 * orphan modules must not spin). While it backs off, `wake` (something that could fix the start
 * changed) starts one at once. A first backend whose address is taken (EXIT_ADDRESS_TAKEN) is not
 * started again: the supervisor stops. Stopping it passes the signal on; it is done once the backend has
 * exited.
 *
 * With a spare (src/server/spare.ts), once a backend serves the supervisor starts the next one ahead of
 * time, loaded and waiting, and a restart hands over to it. A spare is used only when it is ready
 * and no file of Ward's code changed since it started; otherwise the next backend starts from
 * scratch, as it does without a spare.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../logger.ts';
import {
  codeChangedSince,
  EXIT_ADDRESS_TAKEN,
  isWardMessage,
  SPARE_ENV,
  type ToBackend,
  type ToSpare,
} from './spare.ts';

/**
 * A backend that served at least this long before failing counts as a fresh start, not a failure in
 * a row. Counted from when it serves, not from its start: on a loaded machine a start that is
 * refused (orphan modules) can take longer than this, and must still back off.
 */
const STABLE_MS = 10_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;
/** A spare loads in well under a second; one that takes longer is stuck, and a new process is started. */
const DEFAULT_SPARE_READY_TIMEOUT_MS = 5_000;

const withTimeout = <T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

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

export interface SuperviseOptions {
  /**
   * Keep a warm spare whose code is that of this Ward directory (see `codeChangedSince`); a restart
   * waits at most `readyTimeoutMs` (default 5 s) for one still loading.
   */
  spare?: { codeRoot: string; readyTimeoutMs?: number };
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
  /** Pass `signal` to the backend (and end the spare); `done` resolves once both have exited. */
  stop(signal: NodeJS.Signals): void;
  /** The status for the process: 0 once stopped, 1 when the backend's address was taken. */
  done: Promise<number>;
}

interface Spare {
  child: ChildProcess;
  spawnedAt: number;
  /** true once it has loaded and waits; false if it exited first. */
  ready: Promise<boolean>;
  exited: Promise<void>;
}

export function supervise(
  command: string,
  args: string[],
  logger: Logger,
  options: SuperviseOptions = {},
): Supervised {
  let child: ChildProcess | null = null;
  let spare: Spare | null = null;
  const readyTimeoutMs = options.spare?.readyTimeoutMs ?? DEFAULT_SPARE_READY_TIMEOUT_MS;
  /** Spares ended before they served, and not yet gone: stopping waits for them too. */
  const discarded = new Set<Promise<void>>();
  const discard = (unused: Spare) => {
    unused.child.kill('SIGTERM');
    discarded.add(unused.exited);
    void unused.exited.then(() => discarded.delete(unused.exited));
  };
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

  // The IPC channel is a lifeline (the backend stops when it closes, see backend-main.ts) and
  // carries the spare's messages.
  const spawnBackend = (asSpare: boolean) => {
    const child = spawn(command, args, {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: asSpare ? { ...process.env, [SPARE_ENV]: '1' } : process.env,
    });
    // A process that cannot be started, or a message to one that just died: without a listener,
    // either would end the supervisor. Its exit (or the spare's timeout) is handled as usual.
    child.on('error', (error) =>
      logger.error({ err: error, pid: child.pid, spare: asSpare }, 'backend process error'),
    );
    return child;
  };

  const prepareSpare = () => {
    if (spare !== null || stopping) return;
    const child = spawnBackend(true);
    const exited = new Promise<void>((resolve) =>
      exitedOrNeverStarted(child, (code, signal) => {
        if (spare === current) {
          spare = null;
          if (!stopping)
            logger.warn(
              { code, signal },
              'the spare backend exited before it was needed; the next start loads a backend from scratch',
            );
        }
        resolve();
      }),
    );
    const current: Spare = {
      child,
      spawnedAt: Date.now(),
      exited,
      ready: new Promise((resolve) => {
        child.on('message', (message) => {
          if (!isWardMessage(message, 'spare-ready')) return;
          logger.debug({ sparePid: child.pid }, 'a spare backend is ready');
          resolve(true);
        });
        void exited.then(() => resolve(false));
      }),
    };
    spare = current;
  };

  /**
   * The spare, told to start, when it can stand in for a new backend (one still loading is waited
   * for: it is further along than a new process); otherwise null, and it is ended.
   */
  const takeSpare = async (codeRoot: string): Promise<Spare | null> => {
    const candidate = spare;
    if (candidate === null) return null;
    const ready = await withTimeout(candidate.ready, readyTimeoutMs, false);
    const changed = ready && (await codeChangedSince(codeRoot, candidate.spawnedAt));
    // Stopping, or its exit, may have ended it meanwhile.
    if (spare !== candidate) return null;
    spare = null;
    // The callback reports a spare that died after `connected` was last updated.
    const told =
      ready &&
      !changed &&
      candidate.child.connected &&
      (await new Promise<boolean>((resolve) =>
        candidate.child.send({ ward: 'start' } satisfies ToSpare, (error) => resolve(error === null)),
      ));
    if (told) return candidate;
    if (changed)
      logger.info('Ward code changed since the spare backend started; starting a backend from scratch');
    else if (!ready && candidate.child.exitCode === null)
      logger.warn(
        `the spare backend was not ready after ${readyTimeoutMs} ms; starting a backend from scratch`,
      );
    discard(candidate);
    return null;
  };

  /** Done once the backend and any spare have exited. */
  const ended = async () => {
    if (spare !== null) discard(spare);
    spare = null;
    await Promise.all(discarded);
    finish(status);
  };

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
      void start();
    };
    timer = setTimeout(fire, delay);
  };

  const start = async () => {
    wokenSinceStart = false;
    logger.info({ failuresInARow: failures }, 'starting the backend');
    const promoted = options.spare === undefined ? null : await takeSpare(options.spare.codeRoot);
    if (stopping) {
      // Told to start just as the stop came: it is a backend now, and stops like one.
      if (promoted !== null) discard(promoted);
      return ended();
    }
    if (promoted !== null) logger.info({ sparePid: promoted.child.pid }, 'the spare backend takes over');
    let servingSince: number | undefined;
    const current = promoted?.child ?? spawnBackend(false);
    child = current;
    current.on('message', (message) => {
      if (!isWardMessage(message, 'serving')) return;
      served = true;
      servingSince ??= Date.now();
      if (options.spare !== undefined) prepareSpare();
    });
    exitedOrNeverStarted(current, (code, signal) => {
      child = null;
      if (stopping) return void ended();
      // Taken at the first start, the address is someone else's (a second `ward serve`): give up.
      // Taken later, something grabbed it while this backend restarted: back off and try again.
      if (code === EXIT_ADDRESS_TAKEN && !served) {
        logger.error(
          { code },
          'the backend cannot listen: its address is in use (see its error above); not starting it again',
        );
        stopping = true;
        status = 1;
        return void ended();
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

  void start();
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
      void start();
    },
    stop: (signal) => {
      if (stopping) return;
      stopping = true;
      clearTimeout(timer);
      if (child === null) void ended();
      else child.kill(signal);
    },
    done,
  };
}
