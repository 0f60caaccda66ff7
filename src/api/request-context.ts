/**
 * The outermost middleware: gives each request its id and, when metrics are on, measures it.
 *
 * The id is the caller's `X-Request-Id` when that is well-formed (a proxy in front, such as the
 * frontend's nginx, or a client, can then follow one request through several logs), otherwise a
 * new UUID. It is sent back in the answer's `X-Request-Id` and carried by every log line written
 * while the request is handled (src/logger.ts). It also sets the headers every answer carries
 * (patient data: no shared cache may keep an answer, and no browser may guess its type; a later
 * part, such as the web shell's files, may replace them). One middleware rather than three: each
 * link of a Koa chain costs every request a dispatch and a promise, which a profile of the
 * permission-checked GET showed as a few percent of its time.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import { requestScope } from '../logger.ts';
import type { AnsweredRequest } from './http-metrics.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Letters, digits and `._:+=/-`, 1 to 128 of them: UUIDs, nginx's `$request_id`, the ids of
 * common proxies and tracers. Nothing that could break a log line or a header.
 */
const WELL_FORMED = /^[A-Za-z0-9._:+=/-]{1,128}$/;

/** Pure: the id a request is known by: `given` when well-formed, else a new one from `fresh`. */
export function requestIdOf(given: string | undefined, fresh: () => string = randomUUID): string {
  return given !== undefined && WELL_FORMED.test(given) ? given : fresh();
}

/** `observe`: told of each answered request and the seconds it took; null when metrics are off. */
export function requestContext(
  observe: ((request: AnsweredRequest, seconds: number) => void) | null,
): Middleware {
  return async (ctx: Context, next: Next) => {
    const requestId = requestIdOf(ctx.get(REQUEST_ID_HEADER) || undefined);
    ctx.set(REQUEST_ID_HEADER, requestId);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (observe === null) return requestScope.run({ requestId }, next);
    const start = performance.now();
    try {
      await requestScope.run({ requestId }, next);
    } finally {
      observe(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          matchedRoute: (ctx as { _matchedRoute?: unknown })._matchedRoute,
        },
        (performance.now() - start) / 1000,
      );
    }
  };
}
