/**
 * Restarting the backend from the page and following the restart to the end, as docs/http-api.md
 * describes: POST the restart, then follow it with `@ward/restart` (the wait and its probe over
 * HTTP, shared with `ward modules restart --wait`) until another backend serves, then read what
 * the restart applied from the operation log.
 */
import { followRestart as follow, httpProbe } from '@ward/restart';

/** How long the page waits for a new backend before it says the start may have failed. */
export const GIVE_UP_AFTER_MS = 60_000;

/**
 * `POST /api/v1/modules/-/restart`: `{started: {startId, lastLogId}}`, or `{refused: findings}`
 * on 409, the findings being the page's to show. Any other failure throws as `context.api` does.
 * @param {import('@ward/ui').LayerContext} context
 * @param {boolean} force
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

/**
 * Waits until a backend other than `startId` answers: `'restarted'`, or `'gave-up'` after
 * GIVE_UP_AFTER_MS, or `'aborted'` when the user left the page. `onAway(away)` says whether the
 * backend is unreachable right now.
 * @param {import('@ward/ui').LayerContext} context
 * @param {string} startId
 * @param {AbortSignal} signal
 * @param {(away: boolean) => void} onAway
 */
export function followRestart(context, startId, signal, onAway) {
  return follow({
    probe: httpProbe((path, options) => context.api.get(path, options), startId),
    timeoutMs: GIVE_UP_AFTER_MS,
    signal,
    onAway,
  });
}

/**
 * Every operation-log row after `lastLogId`, oldest first, through all its pages.
 * @param {import('@ward/ui').LayerContext} context
 * @param {number} lastLogId
 * @param {AbortSignal} signal
 */
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
