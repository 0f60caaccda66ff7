/**
 * One error shape for every failure, `{"error": {"code", "message", "hint"}}`: ApiErrors carry
 * their status; other WardErrors are expected failures with operator-grade text; http-errors
 * (`ctx.throw(404)`) keep their status; anything else is a bug, logged with its stack and answered
 * with a 500 that reveals nothing.
 */
import type { Context } from '../http/context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isWardError } from '../errors/ward-error.ts';
import type { Logger } from '../logger.ts';
import { REQUEST_ID_HEADER } from './request-context.ts';

export interface ErrorBody {
  error: { code: string; message: string; hint: string };
}

/** WardErrors from below the API that mean "not now" rather than "bug". */
const WARD_ERROR_STATUS: Readonly<Record<string, number>> = {
  database_unreachable: 503,
  database_auth_failed: 503,
  database_missing: 503,
  schema_missing: 503,
  // Two-factor sign-in cannot work until an operator fixes SECRET_KEY or the user's secret: the
  // service is unavailable to that person, not broken by their request.
  secret_key_missing: 503,
  secret_key_mismatch: 503,
  secret_not_sealed: 503,
  sealed_secret_unreadable: 503,
  sealed_secret_damaged: 503,
};

/** For errors that carry only a status (`ctx.throw(404)`, the router's 405). */
const BY_STATUS: Readonly<Record<number, { code: string; hint: string }>> = {
  400: { code: 'bad_request', hint: 'fix the request and send it again' },
  401: { code: 'unauthenticated', hint: 'sign in (POST /api/v1/auth/login) or send a valid API token' },
  403: { code: 'forbidden', hint: 'ask an administrator for a role that allows this' },
  404: { code: 'not_found', hint: 'check the path; GET /api/v1/openapi.json lists every route' },
  405: { code: 'method_not_allowed', hint: 'use one of the methods in the Allow header' },
  409: { code: 'conflict', hint: 'reload the resource and try again' },
  413: { code: 'body_too_large', hint: 'send a smaller body' },
  415: { code: 'unsupported_media_type', hint: 'send Content-Type: application/json' },
  422: { code: 'invalid_body', hint: 'fix the body; GET /api/v1/openapi.json has its schema' },
  429: { code: 'too_many_requests', hint: 'wait, then try again' },
  501: { code: 'not_implemented', hint: 'use one of the methods in the Allow header' },
  503: { code: 'unavailable', hint: 'try again shortly' },
};

export const INTERNAL_ERROR = {
  code: 'internal_error',
  message: 'internal server error',
  hint: 'the backend logged the details; try again, and report it if it keeps happening',
};

interface Rendered {
  status: number;
  body: ErrorBody;
  headers: Readonly<Record<string, string>>;
  /** A bug: log its stack. */
  unexpected: boolean;
  /** For the log line of a refusal, never for the answer: what the client cannot be shown. */
  logDetail?: Record<string, string>;
}

/** Pure: any thrown value to its status and body. */
export function renderError(error: unknown): Rendered {
  if (error instanceof ApiError)
    return {
      status: error.status,
      body: { error: error.toJSON() },
      headers: error.headers,
      unexpected: false,
    };
  if (isWardError(error))
    return {
      status: WARD_ERROR_STATUS[error.code] ?? 500,
      body: { error: error.toJSON() },
      headers: {},
      unexpected: !(error.code in WARD_ERROR_STATUS),
    };
  const database = databaseFailure(error);
  if (database !== null) return database;
  const http = error as { status?: unknown; expose?: unknown; message?: unknown; headers?: unknown } | null;
  const status =
    typeof http?.status === 'number' && http.status >= 400 && http.status < 600 ? http.status : 500;
  if (status >= 500 && http?.expose !== true)
    return { status, body: { error: INTERNAL_ERROR }, headers: {}, unexpected: true };
  const known = BY_STATUS[status] ?? { code: `http_${status}`, hint: 'see the status code' };
  const message = http?.expose === true && typeof http.message === 'string' ? http.message : known.code;
  return {
    status,
    body: { error: { code: known.code, message, hint: known.hint } },
    headers: {},
    unexpected: false,
  };
}

/** SQLSTATE class 22 (data exception): a value the database cannot store, usually from a request. */
const DATA_EXCEPTIONS: Readonly<Record<string, string>> = {
  '22001': 'a value is longer than its field allows',
  '22003': 'a number is out of range',
  '22007': 'a date or time is not valid',
  '22008': 'a date or time is out of range (years 1 to 9999)',
  '22021': 'a text value contains a character that cannot be stored (NUL, \\u0000)',
  '22P02': 'a value does not have the type its field needs',
};

/** Losing the database (stopped, restarting, unreachable) is "try again", not a bug. */
// Only errors of outgoing connections: a client that hangs up mid-request (ECONNRESET) is not one.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout acquiring a connection|connection error/i;

/**
 * Pure: database errors a request can meet without a bug in its route: a value the database
 * refuses (400; its SQLSTATE is logged, since validation should have caught it) or a database that
 * is not there (503). Anything else is null.
 */
function databaseFailure(error: unknown): Rendered | null {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code.startsWith('22'))
    return {
      status: 400,
      body: {
        error: {
          code: 'invalid_value',
          message: DATA_EXCEPTIONS[code] ?? 'the database refused a value in the request',
          hint: 'fix the value and send the request again',
        },
      },
      headers: {},
      unexpected: false,
      logDetail: { sqlState: code },
    };
  const unavailable =
    (typeof code === 'string' &&
      (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message));
  if (!unavailable) return null;
  return {
    status: 503,
    body: {
      error: {
        code: 'database_unavailable',
        message: 'the database is not reachable',
        hint: 'try again shortly; if it keeps happening, check that the database server runs',
      },
    },
    headers: { 'Retry-After': '5' },
    unexpected: false,
  };
}

export function errorFor(status: number, message: string): ErrorBody {
  const known = BY_STATUS[status] ?? { code: `http_${status}`, hint: 'see the status code' };
  return { error: { code: known.code, message, hint: known.hint } };
}

/**
 * What a request or its answer meets when the client hangs up: the connection reset or closed
 * early (a body cut short fails to parse), a response stream ended before it was all sent.
 */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Pure: the error is the client's leaving, not a fault of Ward's: one of those errors, and the
 * client's connection is indeed closed (a database connection reset while the client waits is not).
 */
export function isClientGone(error: unknown, connectionClosed: boolean): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    connectionClosed && typeof code === 'string' && (CLIENT_GONE_CODES.has(code) || code.startsWith('HPE_'))
  );
}

// The response and its socket, not the request: a request is destroyed once its body has been
// read, while the response is destroyed only when the connection closed before it was sent (and
// its socket as soon as the connection failed, a moment earlier).
const clientGone = (error: unknown, ctx: Context): boolean =>
  isClientGone(error, ctx.res.destroyed || ctx.res.socket?.destroyed === true);

/** Requests whose client was already reported gone: one abort can surface as several errors. */
const reportedGone = new WeakSet<Context>();

/** A client that hangs up is routine (a closed tab, a lost network): one line, no stack, not an error. */
function reportClientGone(logger: Logger, ctx: Context, error: unknown): void {
  if (reportedGone.has(ctx)) return;
  reportedGone.add(ctx);
  logger.info(
    {
      method: ctx.method,
      path: ctx.path,
      requestId: ctx.res.getHeader(REQUEST_ID_HEADER) ?? undefined,
      // Whether the request had arrived in full: an upload cut off, or an answer not all received.
      stage: ctx.req.complete ? 'response' : 'request',
      code: (error as { code: string }).code,
    },
    'client closed the connection before the exchange was complete',
  );
}

/**
 * For respond.ts: errors met after the middleware ran (writing the answer, a streamed body failing
 * or its client leaving part way), logged as what they are.
 */
export function answerFailureLogger(logger: Logger): (error: unknown, ctx?: Context) => void {
  return (error, ctx) => {
    if (ctx !== undefined && clientGone(error, ctx)) reportClientGone(logger, ctx, error);
    else
      logger.error(
        {
          err: error,
          method: ctx?.method,
          path: ctx?.path,
          // Sending may fail after the request's own work is done, outside its log scope.
          requestId: ctx?.res.getHeader(REQUEST_ID_HEADER) ?? undefined,
        },
        'answer failed',
      );
  };
}

/**
 * A handled 4xx is the client's mistake, not Ward's: one info line with its code, and neither a
 * stack (source paths of the server, of no use to whoever reads why a request was refused) nor the
 * message, which may quote a value the request held.
 */
function logRefusal(logger: Logger, ctx: Context, rendered: Rendered): void {
  logger.info(
    {
      method: ctx.method,
      path: ctx.path,
      status: rendered.status,
      code: rendered.body.error.code,
      ...rendered.logDetail,
    },
    'request refused',
  );
}

/** After the middleware below answered: a 4xx or 5xx without a body (404, 405) gets the error shape. */
export function answerBodiless(ctx: Context): void {
  if (ctx.status < 400 || ctx.body != null) return;
  const message =
    ctx.status === 404
      ? `nothing at ${ctx.method} ${ctx.path}`
      : ctx.status === 405
        ? `${ctx.method} is not allowed on ${ctx.path}`
        : `${ctx.method} ${ctx.path} failed`;
  const status = ctx.status;
  ctx.body = errorFor(status, message);
  ctx.status = status;
}

/** What the middleware below threw, answered in the error shape and logged as what it is. */
export function answerError(logger: Logger, ctx: Context, error: unknown): void {
  if (clientGone(error, ctx)) {
    // Nobody is left to answer.
    reportClientGone(logger, ctx, error);
    return;
  }
  const rendered = renderError(error);
  if (rendered.unexpected) logger.error({ err: error, method: ctx.method, path: ctx.path }, 'request failed');
  else if (rendered.status < 500) logRefusal(logger, ctx, rendered);
  ctx.status = rendered.status;
  ctx.set(rendered.headers);
  ctx.body = rendered.body;
}
