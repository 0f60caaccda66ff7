/**
 * Restarting the backend from the page and following the restart to the end, as docs/http-api.md
 * describes: POST the restart, wait while no backend answers (or the old one finishes its
 * requests), until `GET /modules/-/restart/{startId}` says another backend serves, then read
 * what the restart applied from the operation log.
 */

/** How long the page waits for a new backend before it says the start may have failed. */
export const GIVE_UP_AFTER_MS = 60_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 4_000;

/**
 * `POST /api/v1/modules/-/restart`: `{started: {startId, lastLogId}}`, or `{refused: findings}`
 * on 409, the findings being the page's to show. Any other failure throws as `context.api` does.
 */
export async function requestRestart(context, force) {
  try {
    const { startId, lastLogId } = await context.api.post('/modules/-/restart', force ? { force: true } : {});
    return { started: { startId, lastLogId } };
  } catch (error) {
    if (error.status === 409 && error.code === 'restart_refused')
      return { refused: error.details.findings ?? [] };
    throw error;
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Polls until a backend other than `startId` answers: `'restarted'`, or `'gave-up'` after
 * GIVE_UP_AFTER_MS, or `'aborted'` when the user left the page. While nothing answers, it asks
 * `/health` (cheap, and public) with a growing delay; once something answers, it asks which
 * backend that is, since the old one answers too while it finishes its requests.
 * `onAway(away)` says whether the backend is unreachable right now.
 */
export async function followRestart(context, startId, signal, onAway) {
  const deadline = Date.now() + GIVE_UP_AFTER_MS;
  let delay = FIRST_DELAY_MS;
  while (!signal.aborted) {
    const health = await context.api.get('/health', { signal }).then(
      () => true,
      () => false,
    );
    if (signal.aborted) break;
    if (health) {
      const answer = await context.api
        .get(`/modules/-/restart/${encodeURIComponent(startId)}`, { signal })
        .catch(() => null);
      if (answer?.restarted === true) return 'restarted';
      // The old backend still finishing its requests: it stops soon, so look again soon.
      if (answer !== null) delay = FIRST_DELAY_MS;
    }
    onAway(!health);
    if (Date.now() >= deadline) return 'gave-up';
    await sleep(delay, signal);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
  return 'aborted';
}

/** Every operation-log row after `lastLogId`, oldest first, through all its pages. */
export async function stepsSince(context, lastLogId, signal) {
  const steps = [];
  let after = lastLogId;
  for (;;) {
    const page = await context.api.get(`/modules/-/log?after=${after}&limit=200`, { signal });
    steps.push(...page.entries);
    if (!page.more || page.entries.length === 0) return steps;
    after = page.entries.at(-1).id;
  }
}
