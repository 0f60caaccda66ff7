/** Query parameters of the module's routes: the job id, list filters, and what a new job's source is. */
import type { Knex } from 'knex';
import type { Context, WardSdk } from '../../../../src/sdk/index.ts';
import { IMPORT_FORMATS, isImportFormat, type ImportFormat, type Severity } from '../index.ts';
import { JOB_STATES, type JobRow, type JobState } from '../jobs/job-row.ts';
import { getJob } from '../jobs/job-store.ts';
import { JOB, jobNotFound } from './errors.ts';

export const jobId = (sdk: WardSdk, ctx: Context): number => sdk.http.idParam(ctx, 'id', JOB);

/** The job `id` names, or 404. */
export async function foundJob(sdk: WardSdk, knex: Knex, id: number): Promise<JobRow> {
  const job = await getJob(knex, id);
  if (job === undefined) throw jobNotFound(sdk, id);
  return job;
}

function oneOf<T extends string>(
  sdk: WardSdk,
  ctx: Context,
  parameter: string,
  allowed: readonly T[],
): T | undefined {
  const value = sdk.http.queryText(ctx, parameter);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw sdk.errors.invalidQuery(
      parameter,
      `must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`,
    );
  return value as T;
}

export const severityFilter = (sdk: WardSdk, ctx: Context): Severity | undefined =>
  oneOf(sdk, ctx, 'severity', ['error', 'warning', 'info'] as const);

export const stateFilter = (sdk: WardSdk, ctx: Context): JobState | undefined =>
  oneOf(sdk, ctx, 'state', JOB_STATES);

export function sampleSize(sdk: WardSdk, ctx: Context): number {
  const text = sdk.http.queryText(ctx, 'sample');
  if (text === undefined) return 20;
  const value = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 100))
    throw sdk.errors.invalidQuery('sample', `must be an integer from 0 to 100, not ${JSON.stringify(text)}`);
  return value;
}

/** A label for the old system, part of every imported record's key: `?source_system=`. */
const SOURCE_SYSTEM = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/;

export interface SourceParams {
  format: ImportFormat;
  sourceSystem: string;
}

export function sourceParams(sdk: WardSdk, ctx: Context): SourceParams {
  const { http, errors } = sdk;
  const format = http.queryText(ctx, 'format');
  if (format === undefined || !isImportFormat(format))
    throw errors.invalidQuery(
      'format',
      `${format === undefined ? 'is missing' : `is ${JSON.stringify(format)}`}; it must be one of ${IMPORT_FORMATS.join(', ')}`,
    );
  const sourceSystem = http.queryText(ctx, 'source_system');
  if (sourceSystem === undefined || !SOURCE_SYSTEM.test(sourceSystem))
    throw errors.invalidQuery(
      'source_system',
      `${sourceSystem === undefined ? 'is missing' : `is ${JSON.stringify(sourceSystem)}`}; name the old system with 1 to 63 letters, digits, _ . : or -, starting with a letter or digit (for example oldclinic)`,
    );
  return { format, sourceSystem };
}
