/** Query parameters of the module's routes: the job id, list filters, and what a new job's source is. */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import { idParam, invalidQuery, queryText } from '../../../patients/lib/request.ts';
import { IMPORT_FORMATS, isImportFormat, type ImportFormat, type Severity } from '../index.ts';
import { JOB_STATES, type JobRow, type JobState } from '../jobs/job-row.ts';
import { getJob } from '../jobs/job-store.ts';
import { JOB, jobNotFound } from './errors.ts';

export const jobId = (ctx: Context): number => idParam(ctx, 'id', JOB);

/** The job `id` names, or 404. */
export async function foundJob(knex: Knex, id: number): Promise<JobRow> {
  const job = await getJob(knex, id);
  if (job === undefined) throw jobNotFound(id);
  return job;
}

function oneOf<T extends string>(ctx: Context, parameter: string, allowed: readonly T[]): T | undefined {
  const value = queryText(ctx, parameter);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw invalidQuery(parameter, `must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
  return value as T;
}

export const severityFilter = (ctx: Context): Severity | undefined =>
  oneOf(ctx, 'severity', ['error', 'warning', 'info'] as const);

export const stateFilter = (ctx: Context): JobState | undefined => oneOf(ctx, 'state', JOB_STATES);

export function sampleSize(ctx: Context): number {
  const text = queryText(ctx, 'sample');
  if (text === undefined) return 20;
  const value = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 100))
    throw invalidQuery('sample', `must be an integer from 0 to 100, not ${JSON.stringify(text)}`);
  return value;
}

/** A label for the old system, part of every imported record's key: `?source_system=`. */
const SOURCE_SYSTEM = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$/;

export interface SourceParams {
  format: ImportFormat;
  sourceSystem: string;
}

export function sourceParams(ctx: Context): SourceParams {
  const format = queryText(ctx, 'format');
  if (format === undefined || !isImportFormat(format))
    throw invalidQuery(
      'format',
      `${format === undefined ? 'is missing' : `is ${JSON.stringify(format)}`}; it must be one of ${IMPORT_FORMATS.join(', ')}`,
    );
  const sourceSystem = queryText(ctx, 'source_system');
  if (sourceSystem === undefined || !SOURCE_SYSTEM.test(sourceSystem))
    throw invalidQuery(
      'source_system',
      `${sourceSystem === undefined ? 'is missing' : `is ${JSON.stringify(sourceSystem)}`}; name the old system with 1 to 63 letters, digits, _ . : or -, starting with a letter or digit (for example oldclinic)`,
    );
  return { format, sourceSystem };
}
