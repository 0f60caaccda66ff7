/**
 * pino, as JSON lines for log collectors, or human-readable when a person watches a terminal. The
 * level is the LOG_LEVEL setting (`config.logLevel`, default info).
 *
 * Every line logged while a request is handled carries its `requestId` (src/api/request-context.ts),
 * whichever logger writes it — Ward's own, a module's, the error renderer's — with no logger passed
 * down per request: the id travels with the request's asynchronous work (AsyncLocalStorage).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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

export function createLogger(level: string, name = 'ward'): Logger {
  if (process.stdout.isTTY)
    return pino({
      name,
      level,
      mixin: withRequestId,
      serializers: LOG_SERIALIZERS,
      transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname' } },
    });
  return pino({ name, level, mixin: withRequestId, serializers: LOG_SERIALIZERS });
}

/** For callers (tests, the CLI) that want the controller quiet. */
export const silentLogger: Logger = pino({ level: 'silent' });
