/**
 * pino, as JSON lines for log collectors, or human-readable when a person watches a terminal.
 * LOG_LEVEL sets the level (default info).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(name = 'ward'): Logger {
  const level = process.env.LOG_LEVEL ?? 'info';
  if (process.stdout.isTTY)
    return pino({ name, level, transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname' } } });
  return pino({ name, level });
}

/** For callers (tests, the CLI) that want the controller quiet. */
export const silentLogger: Logger = pino({ level: 'silent' });
