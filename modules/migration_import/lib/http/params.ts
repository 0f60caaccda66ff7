/** Query parameters of the module's routes: the job id, list filters, and what a new job's source is. */
import type { Context } from 'koa';
import { ApiError } from '../../../../src/api/errors.ts';
import { invalidQuery, parseId, queryText } from '../../../patients/lib/request.ts';
import { IMPORT_FORMATS, isImportFormat, type ImportFormat, type Severity } from '../index.ts';
import { JOB_STATES, type JobState } from '../jobs/job-row.ts';
import { jobNotFound } from './errors.ts';

export function jobId(ctx: Context): number {
  const text = (ctx.params as Record<string, string | undefined>).id;
  const id = parseId(text);
  if (id === null) throw jobNotFound(text);
  return id;
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

/** Uploads are kept byte for byte: a compressed body would be stored compressed. */
export function refuseEncoded(ctx: Context): void {
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  if (encoding !== '' && encoding !== 'identity')
    throw new ApiError(
      415,
      'unsupported_media_type',
      `uploads are stored as sent, so they cannot be ${encoding}-encoded`,
      'send the file uncompressed (without Content-Encoding)',
    );
}
