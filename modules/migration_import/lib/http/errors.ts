/** The module's refusals, each saying what was found and what to do. */
import type { ApiError, WardSdk } from '../../../../src/sdk/index.ts';
import type { JobRow } from '../jobs/job-row.ts';

/** What a 404 calls a job. */
export const JOB = 'migration_import job';

export const jobNotFound = (sdk: WardSdk, id: number | string | undefined): ApiError =>
  sdk.errors.notFound(JOB, id);

const busy = (sdk: WardSdk, job: JobRow) =>
  new sdk.errors.ApiError(
    409,
    'job_busy',
    `job ${job.id} is ${job.state} now (progress ${job.rows_done}/${job.rows_total}); its worker holds it until ${job.lease_expires_at?.toISOString() ?? 'it ends'}`,
    `wait for it to finish (GET /jobs/${job.id}); a job whose worker died is taken over once that time has passed`,
  );

/** The job's source is gone: nothing can read it again. */
export const purged = (sdk: WardSdk, job: JobRow): ApiError =>
  new sdk.errors.ApiError(
    409,
    'job_purged',
    `job ${job.id} was purged (by ${job.purged_by ?? 'someone'} at ${job.purged_at?.toISOString() ?? 'some time'}): its source, binaries and warnings are deleted`,
    'to import this export again, create a new job from the file',
  );

/** Why a job cannot be purged now. */
export const cannotPurge = (sdk: WardSdk, job: JobRow): ApiError => busy(sdk, job);

/** Why validation cannot start on this job now. */
export function cannotValidate(sdk: WardSdk, job: JobRow): ApiError {
  if (job.purged_at !== null) return purged(sdk, job);
  if (job.state === 'validating' || job.state === 'executing') return busy(sdk, job);
  return new sdk.errors.ApiError(
    409,
    'job_already_executed',
    `job ${job.id} has been executed (state ${job.state}); validating it again would discard what its runs recorded`,
    `execute it again to retry its failed rows, or create a new job for a corrected source`,
  );
}

/** Why execute cannot start on this job now. */
export function cannotExecute(sdk: WardSdk, job: JobRow): ApiError {
  if (job.purged_at !== null) return purged(sdk, job);
  if (job.state === 'created')
    return new sdk.errors.ApiError(
      409,
      'job_not_validated',
      `job ${job.id} has not been validated, so it cannot be executed`,
      `validate it first: POST /jobs/${job.id}/validate, then check GET /jobs/${job.id}`,
    );
  if (job.state === 'invalid') {
    const errors = job.counts.warnings?.error ?? 0;
    return new sdk.errors.ApiError(
      409,
      'job_invalid',
      `job ${job.id} cannot be executed: validation found ${errors} error${errors === 1 ? '' : 's'} in its source${job.error === null ? '' : ` (${job.error})`}`,
      `read them with GET /jobs/${job.id}/warnings?severity=error, fix the source and create a new job (or upload missing binaries and validate again)`,
    );
  }
  return busy(sdk, job);
}
