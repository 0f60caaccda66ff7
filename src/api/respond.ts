/**
 * Serving Ward's middleware on node:http: one WardContext per request, the middleware, then the
 * answer written from what it set, as Koa wrote it: no body for 204, 205 and 304; headers only
 * for HEAD (with the Content-Length the body would have had); a status without a body answers its
 * status text; a Buffer or string as is, a stream piped, anything else as JSON.
 *
 * No listener is added per answer: only a streamed body gets one (the pipeline's), which closes
 * the stream when the client leaves and reports a failure part way.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { INTERNAL_ERROR } from './errors.ts';
import { REQUEST_ID_HEADER } from './request-context.ts';
import {
  EMPTY_STATUS,
  isStream,
  WardContext,
  type Middleware,
  type Next,
  type ProxyTrust,
} from '../http/context.ts';

/** Told of a failure met after the middleware: writing the answer, or its stream part way. */
export type AnswerFailed = (error: unknown, ctx: WardContext) => void;

/**
 * The listener for `http.createServer`. `middleware` must answer every error itself (Ward's
 * request context does); `failed` hears of those met while writing the answer.
 */
export function serve(middleware: Middleware, trust: ProxyTrust, failed: AnswerFailed): RequestListener {
  const done: Next = () => Promise.resolve();
  return (req: IncomingMessage, res: ServerResponse) => {
    const ctx = new WardContext(req, res, trust);
    middleware(ctx, done).then(
      () => {
        try {
          respond(ctx, failed);
        } catch (error) {
          answerFailure(ctx, error, failed);
        }
      },
      (error: unknown) => answerFailure(ctx, error, failed),
    );
  };
}

// Not an ES import of node:http, which would load its fetch client at start (app.ts).
const STATUS_TEXT = process.getBuiltinModule('node:http').STATUS_CODES;

/** Writes the answer the middleware left on `ctx`. */
export function respond(ctx: WardContext, failed: AnswerFailed): void {
  const res = ctx.res;
  let body = ctx.body;
  if (!ctx.writable) {
    if (isStream(body)) body.destroy();
    res.end();
    return;
  }
  const status = ctx.status;
  res.statusCode = status;
  if (EMPTY_STATUS.has(status)) {
    ctx.body = null;
    res.end();
    return;
  }
  if (ctx.method === 'HEAD') {
    if (!res.headersSent && !res.hasHeader('Content-Length')) {
      const length = ctx.length;
      if (Number.isInteger(length)) ctx.length = length as number;
    }
    if (isStream(body)) body.destroy();
    res.end();
    return;
  }
  if (body == null) {
    if (ctx.explicitNullBody) {
      ctx.remove('Content-Type');
      ctx.remove('Transfer-Encoding');
      ctx.length = 0;
      res.end();
      return;
    }
    const text = STATUS_TEXT[status] ?? String(status);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    res.end(text);
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  if (isStream(body)) {
    pipeline(body, res, (error) => {
      if (error) answerFailure(ctx, error, failed);
    });
    return;
  }
  body = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(body as string);
  res.end(body);
}

/**
 * A failure met after the middleware answered: reported; then, if nothing was sent yet and the
 * answer can still be written, a 500 in Ward's error shape (with the request id and the headers
 * every answer carries) instead of the answer that could not be written. A streamed body's
 * failure comes from its pipeline, which has destroyed the answer by then: its client sees the
 * connection close, as it did on Koa, and the failure is reported.
 */
function answerFailure(ctx: WardContext, error: unknown, failed: AnswerFailed): void {
  failed(error, ctx);
  const res = ctx.res;
  if (res.headersSent || !ctx.writable) return;
  const requestId = res.getHeader(REQUEST_ID_HEADER);
  const closing = res.getHeader('Connection') === 'close';
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  // During a graceful stop the drainer has told the client to close (src/server/drain.ts).
  if (closing) res.setHeader('Connection', 'close');
  if (requestId !== undefined) res.setHeader(REQUEST_ID_HEADER, requestId);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const body = JSON.stringify({ error: INTERNAL_ERROR });
  res.statusCode = 500;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
