/**
 * pino, as JSON lines for log collectors, or human-readable when a person watches a terminal. The
 * level is the LOG_LEVEL setting (`config.logLevel`, default info).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name = 'ward'): Logger {
  if (process.stdout.isTTY)
    return pino({ name, level, transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname' } } });
  return pino({ name, level });
}

/** For callers (tests, the CLI) that want the controller quiet. */
export const silentLogger: Logger = pino({ level: 'silent' });
