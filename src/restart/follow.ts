/**
 * Following a restart, written once for `ward modules restart --wait` and the Modules page, which
 * imports this file as `@ward/restart` (the web shell's build makes it a shared library of the
 * import map). Each side asks in its own way whether the restart is over, the probe: the CLI reads
 * the running backends from the database, the page asks `/health` and
 * `GET /api/v1/modules/-/restart/{startId}` (httpProbe). The waiting between probes, the deadline,
 * and what the operation-log rows since the restart say about it are here. Imports nothing, so the
 * browser runs it as it is after the build strips its types.
 */

/** What a probe saw: the restart is over, the old backend still answers (it finishes its requests), or nothing answers. */
export type Seen = 'back' | 'old' | 'away';

export type FollowResult = 'restarted' | 'gave-up' | 'aborted';

export interface FollowOptions {
  probe: (signal?: AbortSignal) => Promise<Seen>;
  /** Gives up once this long has passed since the start without `back`. */
  timeoutMs: number;
  /** Aborts the wait (the user left the page): the result is `aborted`. */
  signal?: AbortSignal;
  /** Called after each probe that was not `back`: whether nothing answered. */
  onAway?: (away: boolean) => void;
  /** The clock and the wait, given by tests; Date.now and setTimeout otherwise. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The first wait, and the one after any answer: the old backend stops soon, so look again soon. */
export const FIRST_DELAY_MS = 250;
/** While nothing answers the wait doubles up to this: a new backend may migrate for minutes. */
export const MAX_DELAY_MS = 4_000;

/** How long to wait after seeing `seen`, the previous wait having been `previous` (null: none yet). */
export function nextDelay(previous: number | null, seen: Seen): number {
  if (seen !== 'away' || previous === null) return FIRST_DELAY_MS;
  return Math.min(previous * 2, MAX_DELAY_MS);
}

const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Probes until the restart is over (`restarted`), the time is up (`gave-up`), or `signal` aborts. */
export async function followRestart(options: FollowOptions): Promise<FollowResult> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const deadline = now() + options.timeoutMs;
  let delay: number | null = null;
  const aborted = () => options.signal?.aborted === true;
  while (!aborted()) {
    const seen = await options.probe(options.signal);
    if (aborted()) break;
    if (seen === 'back') return 'restarted';
    options.onAway?.(seen === 'away');
    if (now() >= deadline) return 'gave-up';
    delay = nextDelay(delay, seen);
    await sleep(delay, options.signal);
  }
  return 'aborted';
}

/** GETs a path of Ward's API; answers its JSON, and throws when it fails (a refused connection, a 502). */
export type Get = (path: string, options: { signal?: AbortSignal }) => Promise<unknown>;

/**
 * The probe over HTTP, for a page that asked backend `startId` to restart: `/health` while nothing
 * answers (cheap, and public), then which backend answers, since the old one does too while it
 * finishes its requests.
 */
export function httpProbe(get: Get, startId: string): (signal?: AbortSignal) => Promise<Seen> {
  return async (signal) => {
    const healthy = await get('/health', { signal }).then(
      () => true,
      () => false,
    );
    if (!healthy) return 'away';
    const answer = (await get(`/api/v1/modules/-/restart/${encodeURIComponent(startId)}`, { signal }).catch(
      () => null,
    )) as { restarted?: unknown } | null;
    if (answer === null) return 'away';
    return answer.restarted === true ? 'back' : 'old';
  };
}

/** A row of the operation log, as the CLI reads it and `GET /api/v1/modules/-/log` lists it. */
export interface LogStep {
  module_name: string;
  operation: string;
  step: string;
  status: string;
  message: string | null;
}

/** A step as one line: `install patients: migrate done (message)`. */
export const stepLine = (step: LogStep): string =>
  `${step.operation} ${step.module_name}: ${step.step} ${step.status}${step.message ? ` (${step.message})` : ''}`;

/** The steps of a restart that failed or were skipped: a restart with any did not apply its whole plan. */
export function failedSteps<Step extends LogStep>(steps: readonly Step[]): Step[] {
  return steps.filter((step) => step.status === 'failed' || step.status === 'skipped');
}
