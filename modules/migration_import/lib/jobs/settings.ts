/**
 * The module's limits, from the environment when the backend starts (the routes factory reads
 * them once): the largest source file, and how long a background run's lease lasts before another
 * worker may take the job over. Binaries become documents, so the documents module's limit
 * (WARD_DOCUMENT_MAX_BYTES) is theirs.
 */
import type { WardSdk } from '../../../../src/sdk/index.ts';

export interface ImportSettings {
  maxSourceBytes: number;
  /** A worker renews its lease every third of this; a job whose lease lapsed is resumed by anyone. */
  leaseMs: number;
  /** Records written per transaction by execute (WARD_IMPORT_BATCH_SIZE, 1 to 50,000). */
  batchSize: number;
  /** Warnings one phase of a job stores (WARD_IMPORT_MAX_WARNINGS, 100 to 1,000,000); the rest are counted. */
  maxWarnings: number;
  /**
   * Days after its last change that a job's raw data (source, binaries, warnings) is purged by the
   * sweeper (WARD_IMPORT_RETENTION_DAYS, 0 to 36,500); 0 keeps it until someone purges the job.
   */
  retentionDays: number;
}

export const DEFAULT_SETTINGS: ImportSettings = {
  maxSourceBytes: 2048 * 1024 * 1024,
  leaseMs: 30_000,
  batchSize: 2000,
  maxWarnings: 10_000,
  retentionDays: 0,
};

function integer(
  sdk: WardSdk,
  value: string,
  variable: string,
  min: number,
  max: number,
  example: string,
): number {
  const parsed = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(parsed >= min && parsed <= max))
    throw new sdk.errors.WardError(
      'invalid_setting',
      `${variable}=${JSON.stringify(value)} is not a whole number from ${min} to ${max}`,
      `give a whole number, such as ${example}`,
    );
  return parsed;
}

function setting<T>(env: NodeJS.ProcessEnv, variable: string, fallback: T, parse: (value: string) => T): T {
  const value = env[variable];
  return value === undefined || value === '' ? fallback : parse(value);
}

export function importSettings(sdk: WardSdk, env: NodeJS.ProcessEnv = process.env): ImportSettings {
  return {
    maxSourceBytes: setting(env, 'WARD_IMPORT_MAX_SOURCE_SIZE', DEFAULT_SETTINGS.maxSourceBytes, (value) =>
      sdk.settings.parseSize(value, 'WARD_IMPORT_MAX_SOURCE_SIZE'),
    ),
    leaseMs: setting(
      env,
      'WARD_IMPORT_LEASE_SECONDS',
      DEFAULT_SETTINGS.leaseMs,
      (value) => integer(sdk, value, 'WARD_IMPORT_LEASE_SECONDS', 1, 3600, '30 (the default)') * 1000,
    ),
    batchSize: setting(env, 'WARD_IMPORT_BATCH_SIZE', DEFAULT_SETTINGS.batchSize, (value) =>
      integer(sdk, value, 'WARD_IMPORT_BATCH_SIZE', 1, 50_000, '2000 (the default)'),
    ),
    maxWarnings: setting(env, 'WARD_IMPORT_MAX_WARNINGS', DEFAULT_SETTINGS.maxWarnings, (value) =>
      integer(sdk, value, 'WARD_IMPORT_MAX_WARNINGS', 100, 1_000_000, '10000 (the default)'),
    ),
    retentionDays: setting(env, 'WARD_IMPORT_RETENTION_DAYS', DEFAULT_SETTINGS.retentionDays, (value) =>
      integer(sdk, value, 'WARD_IMPORT_RETENTION_DAYS', 0, 36_500, '90, or 0 to keep sources until purged'),
    ),
  };
}
