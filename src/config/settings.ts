/**
 * The one table of Ward's settings: what the loader takes from the environment and the settings
 * files, what `ward config` shows, and what the README's configuration table lists (a test keeps
 * the README's rows equal to these). A name not in this table is never taken from a file.
 */
import path from 'node:path';
import { MASK, redactUrl } from './redact-url.ts';

export type SettingKind =
  /** Taken as given. */
  | 'text'
  /** A folder or file: a relative path in a file is relative to that file's folder, in the environment to the working directory. */
  | 'path'
  /** Colon-separated paths, each resolved like a `path`. */
  | 'paths';

export interface Setting {
  name: string;
  kind: SettingKind;
  /** The default as the README states it (Markdown); `—` when there is none. */
  documentedDefault: string;
  /** What it does, as the README's table says it (Markdown). */
  meaning: string;
  /** The value used when none is given, for `ward config`; null when unset means "none" (or, for DATABASE_URL, the embedded server). */
  fallback?: (paths: { root: string; storageDir: string }) => string;
  /**
   * Read by a module from process.env rather than from Ward's configuration: a backend copies
   * the value it took from a file into its own process.env before it loads module code.
   */
  module?: string;
  /** The storage folder cannot be chosen by a file inside it: only the environment and `<root>/.env` set it. */
  notInStorageFile?: boolean;
}

export const SETTINGS: readonly Setting[] = [
  {
    name: 'DATABASE_URL',
    kind: 'text',
    documentedDefault: 'embedded server',
    meaning: 'PostgreSQL to use, e.g. `postgres://ward:…@db:5432/ward`',
  },
  {
    name: 'PORT',
    kind: 'text',
    documentedDefault: '`8080`',
    meaning: 'HTTP port of `ward serve` (`0` picks a free one)',
    fallback: () => '8080',
  },
  {
    name: 'HOST',
    kind: 'text',
    documentedDefault: '`127.0.0.1`',
    meaning: 'address the backend listens on: `0.0.0.0` or `::` for every interface (in a container)',
    fallback: () => '127.0.0.1',
  },
  {
    name: 'SECRET_KEY',
    kind: 'text',
    documentedDefault: '—',
    meaning:
      'at least 32 random characters (`openssl rand -hex 32`) sealing the two-factor secrets in the database; two-factor sign-in needs it; on the embedded database Ward generates one into `<storage>/secret.key` when none is set (see [Sealed two-factor secrets](docs/http-api.md#sealed-two-factor-secrets))',
  },
  {
    name: 'LOG_LEVEL',
    kind: 'text',
    documentedDefault: '`info`',
    meaning: 'what the backend logs: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`',
    fallback: () => 'info',
  },
  {
    name: 'WARD_MODULE_PATHS',
    kind: 'paths',
    documentedDefault: '—',
    meaning: 'colon-separated folders whose subfolders are community modules',
  },
  {
    name: 'WARD_PACKAGE_ROOT',
    kind: 'path',
    documentedDefault: 'the Ward directory',
    meaning: 'whose `package.json` dependencies are searched for community module packages',
    fallback: ({ root }) => root,
  },
  {
    name: 'WARD_STORAGE_DIR',
    kind: 'path',
    documentedDefault: '`storage/`',
    meaning: 'runtime data: embedded database, backups, `ward.env`; set in the environment or `.env` only',
    fallback: ({ storageDir }) => storageDir,
    notInStorageFile: true,
  },
  {
    name: 'WARD_FRONTEND_DIR',
    kind: 'path',
    documentedDefault: '`frontend/`',
    meaning: 'where `modules.json` is written',
    fallback: ({ root }) => path.join(root, 'frontend'),
  },
  {
    name: 'WARD_GRANTS_FILE',
    kind: 'path',
    documentedDefault: '`<storage>/grants.json`',
    meaning:
      'extra role grants (see [Permissions](docs/http-api.md#permissions)); set explicitly, it must exist',
    fallback: ({ storageDir }) => path.join(storageDir, 'grants.json'),
  },
  {
    name: 'WARD_JSON_LIMIT',
    kind: 'text',
    documentedDefault: '`1mb`',
    meaning: 'largest JSON request body (`512kb`, `2mb`, or bytes); larger ones get 413',
    fallback: () => '1mb',
  },
  {
    name: 'WARD_TRUST_PROXY',
    kind: 'text',
    documentedDefault: 'off',
    meaning:
      '`1` behind one TLS-terminating proxy: trust `X-Forwarded-Proto` (Secure cookie) and the last `X-Forwarded-For` entry (client address)',
    fallback: () => 'off',
  },
  {
    name: 'WARD_AUDIT_RETENTION_DAYS',
    kind: 'text',
    documentedDefault: 'unset',
    meaning:
      'days audit trail rows are kept, 1 to 36,500: older ones are purged at start and daily (the purge is recorded); unset keeps them forever',
  },
  {
    name: 'WARD_SPARE_BACKEND',
    kind: 'text',
    documentedDefault: 'on',
    meaning:
      "`0` turns off `ward serve`'s warm spare backend (see [Warm spare](docs/operations.md#warm-spare))",
    fallback: () => 'on',
  },
  {
    name: 'WARD_METRICS_PORT',
    kind: 'text',
    documentedDefault: 'off',
    meaning:
      'port of a second listener serving Prometheus metrics at `/metrics` (see [Metrics](docs/operations.md#metrics)); `0` picks a free one, `off` serves none',
    fallback: () => 'off',
  },
  {
    name: 'WARD_METRICS_HOST',
    kind: 'text',
    documentedDefault: '`127.0.0.1`',
    meaning:
      'address the metrics listener binds: `0.0.0.0` or `::` in a container, for the scraper to reach it',
    fallback: () => '127.0.0.1',
  },
  {
    name: 'WARD_METRICS_TOKEN',
    kind: 'text',
    documentedDefault: '—',
    meaning:
      'when set, `/metrics` answers only requests with `Authorization: Bearer <token>` (16 or more characters)',
  },
  {
    name: 'WARD_SESSION_IDLE_MINUTES',
    kind: 'text',
    documentedDefault: '`15`',
    meaning:
      'minutes without a request after which a sign-in session ends (a decimal such as `0.5` works), 0.1 to 720; sessions also end 12 h after sign-in',
    fallback: () => '15',
  },
  {
    name: 'WARD_REQUIRE_2FA',
    kind: 'text',
    documentedDefault: '`off`',
    meaning:
      '`admins` or `everyone`: who must sign in with a second factor; such a user without one is sent to set it up after the password',
    fallback: () => 'off',
  },
  {
    name: 'WARD_MRN_FORMAT',
    kind: 'text',
    documentedDefault: '`{seq:6}`',
    meaning:
      'the MRNs Ward assigns to patients registered without one: text around `{seq:<digits>}`, such as `MRN-{seq:6}` ([patients](docs/clinic-modules.md#patients))',
    fallback: () => '{seq:6}',
    module: 'patients',
  },
  {
    name: 'WARD_DOCUMENT_MAX_BYTES',
    kind: 'text',
    documentedDefault: '`25mb`',
    meaning:
      'largest document upload (bytes, `kb` or `mb`); larger ones get 413 ([documents](docs/clinic-modules.md#documents))',
    fallback: () => '25mb',
    module: 'documents',
  },
  {
    name: 'WARD_IMPORT_MAX_SOURCE_SIZE',
    kind: 'text',
    documentedDefault: '`2048mb`',
    meaning:
      'largest migration import source file; larger ones get 413 ([importing](docs/importing.md#limits-and-settings))',
    fallback: () => '2048mb',
    module: 'migration_import',
  },
  {
    name: 'WARD_IMPORT_LEASE_SECONDS',
    kind: 'text',
    documentedDefault: '`30`',
    meaning: 'seconds a background import run holds its job before another backend may take it over',
    fallback: () => '30',
    module: 'migration_import',
  },
  {
    name: 'WARD_IMPORT_BATCH_SIZE',
    kind: 'text',
    documentedDefault: '`2000`',
    meaning: 'records a migration import writes per transaction, 1 to 50,000',
    fallback: () => '2000',
    module: 'migration_import',
  },
  {
    name: 'WARD_IMPORT_RETENTION_DAYS',
    kind: 'text',
    documentedDefault: '`0`',
    meaning:
      "days after its last change that an import job's source, binaries and warnings are purged; `0` keeps them until purged by hand",
    fallback: () => '0',
    module: 'migration_import',
  },
];

const BY_NAME = new Map(SETTINGS.map((setting) => [setting.name, setting]));

export const findSetting = (name: string): Setting | undefined => BY_NAME.get(name);

/** Names whose whole value is a secret, for settings in the table and any added later. */
const SECRET_NAME = /PASSWORD|SECRET|KEY|TOKEN/;

/** `value` as `ward config` may print it: the password of a database URL and secrets as `***`. */
export function maskSecret(name: string, value: string): string {
  if (SECRET_NAME.test(name)) return MASK;
  if (name === 'DATABASE_URL') return redactUrl(value);
  return value;
}

/**
 * The known name an unknown one was probably meant to be (a typo), or null when none is close:
 * NODE_OPTIONS is no misspelling of PORT.
 */
export function closestSetting(name: string): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const setting of SETTINGS) {
    const distance = editDistance(name.toUpperCase(), setting.name);
    if (best === null || distance < best.distance) best = { name: setting.name, distance };
  }
  if (best === null || best.distance > Math.max(2, Math.floor(best.name.length / 3))) return null;
  return best.name;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
