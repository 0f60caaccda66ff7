/**
 * Ward's configuration, read once per process: the settings of the table in src/config/settings.ts,
 * from the process environment, then `<storage>/ward.env` (on the storage volume, so every process
 * and container that shares it sees the same settings), then `<root>/.env`, then the defaults.
 * WARD_STORAGE_DIR, which locates `ward.env`, comes only from the environment or `<root>/.env`.
 * Nothing else in Ward reads a setting from process.env; modules that do get file values copied
 * there by the backend (`applyModuleSettings`).
 */
import { readFileSync } from 'node:fs';
import { isIP, isIPv6 } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { WardError } from './errors/ward-error.ts';
import { parseEnvFile } from './config/env-file.ts';
import { resolveSettings, type ResolvedSetting, type SettingsFile } from './config/resolve.ts';
import { findSetting } from './config/settings.ts';

/** The checkout or install directory: where `modules/`, `node_modules/` and `frontend/` live. */
export const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The settings file on the storage volume. */
export const STORAGE_SETTINGS_FILE = 'ward.env';

export interface Config {
  databaseUrl: string | null;
  /** PORT as given; `parsePort` checks it where a backend listens. */
  port: string | null;
  /** HOST as given; `parseHost` checks it where a backend listens. */
  host: string | null;
  storageDir: string;
  modulePaths: string[];
  /** Whose package.json dependencies are searched for community module packages (its node_modules). */
  packageRoot: string;
  /** Where `modules.json` is written for the frontend build. */
  frontendDir: string;
  root: string;
  /** Extra role grants (WARD_GRANTS_FILE); `required` when set explicitly, so a missing file is an error. */
  grantsFile: { path: string; required: boolean };
  /** WARD_JSON_LIMIT as given (`1mb`, `512kb`, bytes); parsed and checked by the API, which owns the rule. */
  jsonLimit: string | null;
  /** WARD_TRUST_PROXY as given (default off): believe X-Forwarded-Proto/-For from a reverse proxy. */
  trustProxy: string | null;
  /** WARD_SPARE_BACKEND as given (default on): `ward serve` keeps a warm spare (src/server/spare.ts). */
  spareBackend: string | null;
  /** WARD_METRICS_PORT, _HOST and _TOKEN as given (default: no metrics listener); see `metricsSettings`. */
  metrics: { port: string | null; host: string | null; token: string | null };
  /** WARD_SESSION_IDLE_MINUTES as given (default 15); `parseSessionIdle` checks it where a backend starts. */
  /** WARD_AUDIT_RETENTION_DAYS as given; null keeps the audit trail forever. Checked by backendSettings. */
  auditRetentionDays: string | null;
  sessionIdleMinutes: string | null;
  /** WARD_REQUIRE_2FA as given (default off): who must have two-factor sign-in. */
  requireTwoFactor: string | null;
  /** SECRET_KEY as given: the key two-factor secrets are sealed with; `sealingKey` checks it. */
  secretKey: string | null;
  /** LOG_LEVEL (default info). */
  logLevel: string;
  /** Every setting of the table, its value and where it came from: for `ward config` and doctor's hints. */
  resolved: ReadonlyMap<string, ResolvedSetting>;
  /** The settings files, in the order they count, and whether each exists. */
  files: ReadonlyArray<{ path: string; found: boolean }>;
  /** Lines of the files that were ignored, each naming file, line and why; every process reports them. */
  warnings: readonly string[];
}

export interface LoadOptions {
  /** The Ward directory, whose `.env` is read (tests give a scratch one). */
  root?: string;
  /** Against which relative paths given in the environment are resolved. */
  cwd?: string;
}

/** Throws a WardError naming the file and line of a malformed settings file. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  const root = path.resolve(options.root ?? ROOT);
  const cwd = options.cwd ?? process.cwd();
  const rootFile = readSettingsFile(path.join(root, '.env'), false);
  const storageDir =
    resolveSettings(env, cwd, [rootFile]).settings.get('WARD_STORAGE_DIR')?.value ??
    path.join(root, 'storage');
  const storageFile = readSettingsFile(path.join(storageDir, STORAGE_SETTINGS_FILE), true);
  const { settings, warnings } = resolveSettings(env, cwd, [storageFile, rootFile]);
  const value = (name: string): string | null => settings.get(name)?.value ?? null;
  const grantsFile = value('WARD_GRANTS_FILE');
  return {
    databaseUrl: value('DATABASE_URL'),
    port: value('PORT'),
    host: value('HOST'),
    storageDir,
    modulePaths: (value('WARD_MODULE_PATHS') ?? '').split(':').filter((entry) => entry !== ''),
    packageRoot: value('WARD_PACKAGE_ROOT') ?? root,
    frontendDir: value('WARD_FRONTEND_DIR') ?? path.join(root, 'frontend'),
    root,
    grantsFile: {
      path: grantsFile ?? path.join(storageDir, 'grants.json'),
      required: grantsFile !== null,
    },
    jsonLimit: value('WARD_JSON_LIMIT'),
    trustProxy: value('WARD_TRUST_PROXY'),
    spareBackend: value('WARD_SPARE_BACKEND'),
    metrics: {
      port: value('WARD_METRICS_PORT'),
      host: value('WARD_METRICS_HOST'),
      token: value('WARD_METRICS_TOKEN'),
    },
    sessionIdleMinutes: value('WARD_SESSION_IDLE_MINUTES'),
    requireTwoFactor: value('WARD_REQUIRE_2FA'),
    auditRetentionDays: value('WARD_AUDIT_RETENTION_DAYS'),
    secretKey: value('SECRET_KEY'),
    logLevel: value('LOG_LEVEL') ?? 'info',
    resolved: settings,
    files: [storageFile, rootFile].map((file) => ({ path: file.path, found: file.entries !== null })),
    warnings,
  };
}

function readSettingsFile(file: string, inStorage: boolean): SettingsFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path: file, entries: null, inStorage };
    throw new WardError(
      'invalid_settings_file',
      `cannot read the settings file ${file} (${code ?? 'error'})`,
      'make it a file Ward may read, or remove it',
      { cause: error },
    );
  }
  return { path: file, entries: parseEnvFile(text, file), inStorage };
}

/**
 * In a backend, before module code loads: module settings taken from a file, copied into
 * `env` (process.env) where modules read them. Only the backend does this: `ward serve` passes its
 * own environment on unchanged, so each backend it starts reads the files afresh.
 */
export function applyModuleSettings(config: Config, env: NodeJS.ProcessEnv = process.env): void {
  for (const { name, value, source } of config.resolved.values())
    if (source.kind === 'file' && value !== null && findSetting(name)?.module !== undefined)
      env[name] = value;
}

/*
 * Settings are checked where they are used, before anything is started or written: a typo in
 * PORT must not let a backend apply the plan first and fail to listen after, and a command that
 * does not use a setting is not refused for it.
 */

const DEFAULT_PORT = 8080;

/** PORT: a TCP port, 0 for any free one; unset means 8080. */
export function parsePort(value: string | null): number {
  if (value === null) return DEFAULT_PORT;
  return parseTcpPort('PORT', value, `unset: ${DEFAULT_PORT}`);
}

/** A TCP port given in `variable`, 0 for any free one; `unset` says what leaving it unset does. */
export function parseTcpPort(variable: string, value: string, unset: string): number {
  const port = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new WardError(
      'invalid_setting',
      `${variable}=${JSON.stringify(value)} is not a TCP port`,
      `give a number from 1 to 65535, or 0 for any free port (${unset})`,
    );
  return port;
}

const DEFAULT_HOST = '127.0.0.1';

/** One DNS label: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * HOST (or another `variable`, WARD_METRICS_HOST): the address a backend listens on, an IPv4 or
 * IPv6 address (brackets allowed) or a host name; unset means 127.0.0.1, this machine only.
 * Returned as `listen()` takes it.
 */
export function parseHost(value: string | null, variable = 'HOST'): string {
  if (value === null) return DEFAULT_HOST;
  const address = value.trim();
  const bracketed = /^\[(.*)\]$/.exec(address)?.[1];
  if (bracketed === undefined ? isIP(address) !== 0 : isIPv6(bracketed)) return bracketed ?? address;
  const labels = address.replace(/\.$/, '').split('.');
  // All digits is a mistyped IPv4 address (`127.0.0.300`), never a name worth looking up.
  const name =
    address.length <= 253 &&
    labels.every((label) => LABEL.test(label)) &&
    !labels.every((label) => /^\d+$/.test(label));
  if (!name)
    throw new WardError(
      'invalid_setting',
      `${variable}=${JSON.stringify(value)} is not an address to listen on`,
      'give an IP address or a host name: 127.0.0.1 (the default) for this machine only, 0.0.0.0 or :: for every interface (as in a container)',
    );
  return address;
}

const SWITCH_VALUES: Readonly<Record<string, boolean>> = {
  1: true,
  true: true,
  yes: true,
  on: true,
  0: false,
  false: false,
  no: false,
  off: false,
};

/** An on/off setting such as WARD_TRUST_PROXY; unset means `fallback`. */
export function parseSwitch(variable: string, value: string | null, fallback: boolean): boolean {
  if (value === null) return fallback;
  const parsed = SWITCH_VALUES[value.trim().toLowerCase()];
  if (parsed === undefined)
    throw new WardError(
      'invalid_setting',
      `${variable}=${JSON.stringify(value)} is neither on nor off`,
      `give 1 or 0 (also accepted: true/false, yes/no, on/off); unset, it is ${fallback ? 'on' : 'off'}`,
    );
  return parsed;
}
