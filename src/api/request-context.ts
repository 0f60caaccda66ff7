/**
 * The outermost middleware: what every request gets before any route sees it, and what every
 * answer gets after.
 *
 * Each request has an id: the caller's `X-Request-Id` when that is well-formed (a proxy in front,
 * such as the frontend's nginx, or a client, can then follow one request through several logs),
 * otherwise a new UUID. It is sent back in the answer's `X-Request-Id` and carried by every log
 * line written while the request is handled (src/logger.ts). Every answer also carries the headers
 * for patient data: no shared cache may keep it, and no browser may guess its type (a later part,
 * such as the web shell's files, may replace them). Errors are rendered here (errors.ts), inside
 * the log scope; a request waits for knex while it loads (but `/health`); when metrics are on,
 * each answer is measured.
 *
 * One middleware rather than four (request id, headers, errors, knex): every link of a chain
 * costs every request a call, a closure and a promise, and the profile of a permission-checked GET
 * showed them. For the same reason the headers are read and written on Node's request and
 * response directly rather than through `ctx.get` and `ctx.set`, which look each name up again.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware, Next } from '../http/context.ts';
import { requestScope, type Logger } from '../logger.ts';
import { ApiError } from '../errors/api-error.ts';
import { answerBodiless, answerError } from './errors.ts';
import type { AnsweredRequest } from './http-metrics.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** As Node keys it in `req.headers`. */
const REQUEST_ID_LOWER = 'x-request-id';

/**
 * Letters, digits and `._:+=/-`, 1 to 128 of them: UUIDs, nginx's `$request_id`, the ids of
 * common proxies and tracers. Nothing that could break a log line or a header.
 */
const WELL_FORMED = /^[A-Za-z0-9._:+=/-]{1,128}$/;

/** Pure: the id a request is known by: `given` when well-formed, else a new one from `fresh`. */
export function requestIdOf(given: string | undefined, fresh: () => string = randomUUID): string {
  return given !== undefined && WELL_FORMED.test(given) ? given : fresh();
}

export interface RequestContextOptions {
  logger: Logger;
  /** Told of each answered request and the seconds it took; null when metrics are off. */
  observe: ((request: AnsweredRequest, seconds: number) => void) | null;
  /**
   * Loads knex when the app was given lazy-knex.ts's stand-in (src/db/lazy-knex.ts): a backend
   * listens without it and starts loading it at once, so only requests in its first moments wait.
   * Default: knex is loaded.
   */
  loadKnex?: () => Promise<unknown>;
}

export function requestContext(options: RequestContextOptions): Middleware {
  const { logger, observe, loadKnex } = options;
  // Once loaded, a request pays one boolean test.
  let loaded = loadKnex === undefined;

  const handle: Handling = async (ctx, next) => {
    try {
      if (ctx.urlUnreadable)
        throw new ApiError(
          400,
          'bad_request',
          'the request target is not a URL',
          'send a path such as /api/v1/patients/patients, percent-encoding what a URL cannot hold',
        );
      if (!loaded && loadKnex !== undefined && ctx.path !== '/health') {
        await loadKnex();
        loaded = true;
      }
      await next();
      answerBodiless(ctx);
    } catch (error) {
      answerError(logger, ctx, error);
    }
  };

  const handling = observe === null ? handle : measured(observe, handle);
  return (ctx: Context, next: Next) => {
    const given = ctx.req.headers[REQUEST_ID_LOWER];
    const requestId = requestIdOf(typeof given === 'string' && given !== '' ? given : undefined);
    const res = ctx.res;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // enterWith rather than run, which makes two async-context frames a request (one to enter, one
    // to restore). Safe because this is entered from Node's callback for the request, which runs
    // in a frame of its own that Node restores when the callback returns: the rest of that
    // callback (the answer's writing, so its log lines carry the id too) shares the request's
    // frame, nothing else does. Calling the app's listener in-process, outside such a callback,
    // would leave the id in the caller's frame.
    requestScope.enterWith({ requestId });
    return handling(ctx, next);
  };
}

type Handling = (ctx: Context, next: Next) => Promise<void>;

/** `handle`, and then `observe` told of the answer and the seconds it took. */
function measured(observe: (request: AnsweredRequest, seconds: number) => void, handle: Handling): Handling {
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await handle(ctx, next);
    } finally {
      observe(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          matchedRoute: ctx.matchedRoute,
        },
        (performance.now() - start) / 1000,
      );
    }
  };
}
