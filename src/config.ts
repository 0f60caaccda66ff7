/**
 * Ward is configured by environment variables only (documented in the README), read here once so
 * that no other file reaches into process.env.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { WardError } from './errors/ward-error.ts';

/** The checkout or install directory: where `modules/`, `node_modules/` and `frontend/` live. */
export const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface Config {
  databaseUrl: string | null;
  /** PORT as given; `parsePort` checks it where a backend listens. */
  port: string | null;
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
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const storageDir = path.resolve(nonEmpty(env.WARD_STORAGE_DIR) ?? path.join(ROOT, 'storage'));
  const grantsFile = nonEmpty(env.WARD_GRANTS_FILE);
  return {
    databaseUrl: nonEmpty(env.DATABASE_URL),
    port: nonEmpty(env.PORT),
    storageDir,
    modulePaths: (env.WARD_MODULE_PATHS ?? '')
      .split(':')
      .filter((entry) => entry !== '')
      .map((entry) => path.resolve(entry)),
    packageRoot: path.resolve(nonEmpty(env.WARD_PACKAGE_ROOT) ?? ROOT),
    frontendDir: path.resolve(nonEmpty(env.WARD_FRONTEND_DIR) ?? path.join(ROOT, 'frontend')),
    root: ROOT,
    grantsFile: {
      path: grantsFile === null ? path.join(storageDir, 'grants.json') : path.resolve(grantsFile),
      required: grantsFile !== null,
    },
    jsonLimit: nonEmpty(env.WARD_JSON_LIMIT),
    trustProxy: nonEmpty(env.WARD_TRUST_PROXY),
    spareBackend: nonEmpty(env.WARD_SPARE_BACKEND),
  };
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
  const port = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new WardError(
      'invalid_setting',
      `PORT=${JSON.stringify(value)} is not a TCP port`,
      `give a number from 1 to 65535, or 0 for any free port (unset: ${DEFAULT_PORT})`,
    );
  return port;
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

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
