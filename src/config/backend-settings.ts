/**
 * The settings a backend takes from its configuration, parsed and checked in one place: by the
 * backend before it touches the database, and by `ward serve` before it starts one, so that a typo
 * is one clear error instead of a backend failing again and again under back-off.
 */
import { DEFAULT_JSON_LIMIT, parseSize } from './size.ts';
import { parseHost, parsePort, parseSwitch, parseTcpPort, type Config } from '../config.ts';
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
  /** Where metrics are served; null: they are not (WARD_METRICS_PORT unset). */
  metrics: MetricsSettings | null;
  /** WARD_SESSION_IDLE_MINUTES in milliseconds: a session without a request for this long ends. */
  sessionIdleMs: number;
  /** WARD_REQUIRE_2FA: who must have a second factor. */
  requireTwoFactor: TwoFactorPolicy;
  /** WARD_AUDIT_RETENTION_DAYS: days audit rows are kept; null: forever. */
  auditRetentionDays: number | null;
  /** SECRET_KEY, checked to be long enough: what two-factor secrets are sealed with; null when unset. */
  secretKey: string | null;
}

export interface MetricsSettings {
  port: number;
  host: string;
  /** The bearer token `/metrics` requires; null: none. */
  token: string | null;
}

/** Throws a WardError naming the variable and the fix for the first bad setting. */
export function backendSettings(config: Config): BackendSettings {
  const port = parsePort(config.port);
  return {
    port,
    host: parseHost(config.host),
    jsonLimit: config.jsonLimit === null ? DEFAULT_JSON_LIMIT : parseSize(config.jsonLimit),
    trustProxy: parseSwitch('WARD_TRUST_PROXY', config.trustProxy, false),
    logLevel: parseLogLevel(config),
    metrics: metricsSettings(config.metrics, port),
    sessionIdleMs: parseSessionIdle(config.sessionIdleMinutes),
    requireTwoFactor: parseTwoFactorPolicy(config.requireTwoFactor),
    auditRetentionDays: parseAuditRetention(config.auditRetentionDays),
    secretKey: parseSecretKey(config.secretKey),
  };
}

/** SECRET_KEY's least length: `openssl rand -hex 32` gives 64 characters. */
export const MIN_SECRET_KEY_LENGTH = 32;

/** SECRET_KEY: unset or empty is null (two-factor sign-in is then refused); a short one is an error. */
export function parseSecretKey(value: string | null): string | null {
  if (value === null || value === '') return null;
  if (value.length < MIN_SECRET_KEY_LENGTH)
    throw new WardError(
      'invalid_setting',
      `SECRET_KEY is ${value.length} characters long; it needs at least ${MIN_SECRET_KEY_LENGTH}`,
      'set SECRET_KEY to a random value of at least 32 characters (`openssl rand -hex 32`)',
    );
  return value;
}

/** WARD_AUDIT_RETENTION_DAYS: whole days, 1 to 36,500 (a hundred years); unset or empty keeps rows forever. */
export function parseAuditRetention(value: string | null): number | null {
  const text = value?.trim() ?? '';
  if (text === '') return null;
  const days = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1 && days <= 36_500))
    throw new WardError(
      'invalid_setting',
      `WARD_AUDIT_RETENTION_DAYS=${JSON.stringify(value)} is not a whole number of days from 1 to 36500`,
      'give days, such as 2190 for six years; unset, the audit trail is kept forever',
    );
  return days;
}

export const DEFAULT_SESSION_IDLE_MINUTES = 15;
/** A tenth of a minute at least, so a test can wait for an expiry; 12 h at most, a session's whole life. */
const IDLE_MINUTES = { min: 0.1, max: 720 };

/** WARD_SESSION_IDLE_MINUTES: minutes, a decimal allowed; unset means 15. In milliseconds. */
export function parseSessionIdle(value: string | null): number {
  const text = value?.trim() ?? String(DEFAULT_SESSION_IDLE_MINUTES);
  const minutes = /^\d{1,3}(\.\d{1,3})?$/.test(text) ? Number(text) : NaN;
  if (!(minutes >= IDLE_MINUTES.min && minutes <= IDLE_MINUTES.max))
    throw new WardError(
      'invalid_setting',
      `WARD_SESSION_IDLE_MINUTES=${JSON.stringify(value)} is not a number of minutes from ${IDLE_MINUTES.min} to ${IDLE_MINUTES.max}`,
      `give minutes, such as 15 or 0.5; unset, it is ${DEFAULT_SESSION_IDLE_MINUTES}`,
    );
  return Math.round(minutes * 60_000);
}

/** What RFC 6750 allows in a bearer token, so that it fits an Authorization header as it is. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;

/**
 * WARD_METRICS_PORT, _HOST and _TOKEN. Metrics are off unless the port is set (`off` says so
 * explicitly, and then the other two are ignored: a Compose file can keep them). A host or token
 * without any port is refused rather than ignored: whoever set them expects metrics to be served.
 */
export function metricsSettings(given: Config['metrics'], apiPort: number): MetricsSettings | null {
  if (given.port?.trim().toLowerCase() === 'off') return null;
  if (given.port === null) {
    const orphan =
      given.host !== null ? 'WARD_METRICS_HOST' : given.token !== null ? 'WARD_METRICS_TOKEN' : null;
    if (orphan === null) return null;
    throw new WardError(
      'invalid_setting',
      `${orphan} is set but WARD_METRICS_PORT is not, so no metrics would be served`,
      `set WARD_METRICS_PORT to the port Prometheus should scrape (9464 is usual), or unset ${orphan}`,
    );
  }
  const port = parseTcpPort('WARD_METRICS_PORT', given.port, 'off or unset: no metrics are served');
  if (port !== 0 && port === apiPort)
    throw new WardError(
      'invalid_setting',
      `WARD_METRICS_PORT=${port} is also the API's PORT`,
      'give metrics a port of their own (9464 is usual), so that the API port never serves them',
    );
  const token = given.token?.trim() ?? null;
  if (token !== null && (token.length < MIN_TOKEN_LENGTH || !BEARER_TOKEN.test(token)))
    throw new WardError(
      'invalid_setting',
      token.length < MIN_TOKEN_LENGTH
        ? `WARD_METRICS_TOKEN is ${token.length} characters long, too short to guard the metrics`
        : 'WARD_METRICS_TOKEN holds characters a bearer token cannot (spaces, quotes, commas and the like)',
      `give ${MIN_TOKEN_LENGTH} or more letters, digits or -._~+/, such as the output of \`openssl rand -hex 32\``,
    );
  return { port, host: parseHost(given.host, 'WARD_METRICS_HOST'), token };
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

/** Who must have two-factor sign-in: nobody, users holding the `admin` role, or everyone. */
export type TwoFactorPolicy = 'off' | 'admins' | 'everyone';

const POLICIES: readonly TwoFactorPolicy[] = ['off', 'admins', 'everyone'];

/** WARD_REQUIRE_2FA: off (the default), admins or everyone. */
export function parseTwoFactorPolicy(value: string | null): TwoFactorPolicy {
  const policy = (value ?? 'off').trim().toLowerCase();
  const found = POLICIES.find((candidate) => candidate === policy);
  if (found !== undefined) return found;
  throw new WardError(
    'invalid_setting',
    `WARD_REQUIRE_2FA=${JSON.stringify(value)} is not one of off, admins, everyone`,
    'give admins (users holding the admin role) or everyone; unset, it is off',
  );
}
