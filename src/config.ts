/**
 * Ward is configured by environment variables only (documented in the README), read here once so
 * that no other file reaches into process.env.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The checkout or install directory: where `modules/`, `node_modules/` and `frontend/` live. */
export const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface Config {
  databaseUrl: string | null;
  port: number;
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
  /** WARD_TRUST_PROXY: believe X-Forwarded-Proto/-For from a reverse proxy (cookie Secure flag, client ip). */
  trustProxy: boolean;
  /** WARD_SPARE_BACKEND (default on; `0`, `false` or `no` turn it off): `ward serve` keeps a warm spare (src/spare.ts). */
  spareBackend: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const storageDir = path.resolve(nonEmpty(env.WARD_STORAGE_DIR) ?? path.join(ROOT, 'storage'));
  const grantsFile = nonEmpty(env.WARD_GRANTS_FILE);
  return {
    databaseUrl: nonEmpty(env.DATABASE_URL),
    port: Number(nonEmpty(env.PORT) ?? 8080),
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
    trustProxy: /^(1|true|yes)$/i.test(env.WARD_TRUST_PROXY ?? ''),
    spareBackend: !/^(0|false|no)$/i.test(env.WARD_SPARE_BACKEND ?? ''),
  };
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
