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
 * on 409. Sent with fetch rather than `context.api`, whose errors keep only code, message and hint:
 * the findings of a 409 are what the page must show. A failure other than the 409 throws the
 * ApiRequestError `context.api` would have thrown.
 */
export async function requestRestart(context, ApiRequestError, force) {
  const { csrfToken } = await context.api.get('/me');
  let response;
  try {
    response = await fetch('/api/v1/modules/-/restart', {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': csrfToken },
      body: JSON.stringify(force ? { force: true } : {}),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiRequestError(0, {
      code: 'network_error',
      message: 'cannot reach the Ward backend (POST /api/v1/modules/-/restart)',
      hint: 'check your connection, and that the backend is running',
    });
  }
  const body = await response.json().catch(() => null);
  if (response.status === 409 && body?.error?.code === 'restart_refused')
    return { refused: body.error.findings ?? [] };
  if (response.ok) return { started: { startId: body.startId, lastLogId: body.lastLogId } };
  // A 401 means the session ended: asking /me through the shell's client sends the user to sign-in.
  if (response.status === 401) await context.api.get('/me').catch(() => null);
  throw new ApiRequestError(
    response.status,
    body?.error ?? {
      code: 'unexpected_response',
      message: `the server answered ${response.status} ${response.statusText} without Ward's error details`,
      hint: 'check that the Ward backend is running and reachable',
    },
  );
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
