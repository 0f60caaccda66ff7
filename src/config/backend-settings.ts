/**
 * The settings a backend takes from its configuration, parsed and checked in one place: by the
 * backend before it touches the database, and by `ward serve` before it starts one, so that a typo
 * is one clear error instead of a backend failing again and again under back-off.
 */
import { DEFAULT_JSON_LIMIT, parseSize } from './size.ts';
import { parseHost, parsePort, parseSwitch, type Config } from '../config.ts';
import { WardError } from '../errors/ward-error.ts';

export interface BackendSettings {
  port: number;
  /** The address to listen on, as `listen()` takes it. */
  host: string;
  /** Largest JSON body accepted, in bytes. */
  jsonLimit: number;
  trustProxy: boolean;
  /** LOG_LEVEL, one pino knows. */
  logLevel: string;
}

/** Throws a WardError naming the variable and the fix for the first bad setting. */
export function backendSettings(config: Config): BackendSettings {
  return {
    port: parsePort(config.port),
    host: parseHost(config.host),
    jsonLimit: config.jsonLimit === null ? DEFAULT_JSON_LIMIT : parseSize(config.jsonLimit),
    trustProxy: parseSwitch('WARD_TRUST_PROXY', config.trustProxy, false),
    logLevel: parseLogLevel(config),
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** LOG_LEVEL, checked before a logger is made: pino would throw a bare error with a stack trace. */
export function parseLogLevel(config: Config): string {
  const level = config.logLevel.trim().toLowerCase();
  if (LOG_LEVELS.includes(level)) return level;
  const source = config.resolved.get('LOG_LEVEL')?.source;
  const where =
    source?.kind === 'file'
      ? ` (set in ${source.file}:${source.line})`
      : source?.kind === 'environment'
        ? ' (set in the environment)'
        : '';
  throw new WardError(
    'invalid_setting',
    `LOG_LEVEL=${JSON.stringify(config.logLevel)}${where} is not a log level`,
    `give one of ${LOG_LEVELS.join(', ')}; unset, it is info`,
  );
}
