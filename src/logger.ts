/**
 * pino, as JSON lines for log collectors, or human-readable when a person watches a terminal. The
 * level is the LOG_LEVEL setting (`config.logLevel`, default info).
 *
 * Every line logged while a request is handled carries its `requestId` (src/api/request-context.ts),
 * whichever logger writes it — Ward's own, a module's, the error renderer's — with no logger passed
 * down per request: the id travels with the request's asynchronous work (AsyncLocalStorage).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { pino, stdSerializers, type Logger, type LoggerOptions } from 'pino';
import { loggableError } from './errors/loggable-error.ts';

export type { Logger };

export interface RequestScope {
  requestId: string;
}

/** The request being handled, for the lines logged meanwhile. */
export const requestScope = new AsyncLocalStorage<RequestScope>();

// A new object each time: pino merges the line's own fields into what the mixin returns.
const withRequestId: LoggerOptions['mixin'] = () => {
  const scope = requestScope.getStore();
  return scope === undefined ? {} : { requestId: scope.requestId };
};

/**
 * Every logger's serializers: an error (`err`) is logged without the values PostgreSQL's texts may
 * quote (src/errors/loggable-error.ts), since a log line must carry no patient data.
 */
export const LOG_SERIALIZERS: LoggerOptions['serializers'] = {
  err: (error: unknown) => stdSerializers.err(loggableError(error) as Error),
};

/**
 * pino runs a transport in a worker thread whose file it finds beside its own code; in the backend's
 * bundle (src/server/backend-bundle.ts) that code is in build/, so pino is told where the file is,
 * through the override it offers bundlers.
 */
function locateTransportWorker(): void {
  const fromPino = createRequire(createRequire(import.meta.url).resolve('pino'));
  Object.assign(globalThis, {
    __bundlerPathsOverrides: { 'thread-stream-worker': fromPino.resolve('thread-stream/lib/worker.js') },
  });
}

export function createLogger(level: string, name = 'ward'): Logger {
  if (process.stdout.isTTY) {
    locateTransportWorker();
    return pino({
      name,
      level,
      mixin: withRequestId,
      serializers: LOG_SERIALIZERS,
      transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname' } },
    });
  }
  return pino({ name, level, mixin: withRequestId, serializers: LOG_SERIALIZERS });
}

/** For callers (tests, the CLI) that want the controller quiet. */
export const silentLogger: Logger = pino({ level: 'silent' });
