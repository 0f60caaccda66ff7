/**
 * The records of a stored source, as execute and preview read them: streamed from the file,
 * validated on the way, warnings dropped (validation recorded them), the first `skip` passed over.
 */
import type { WardSdk } from '../../../../src/sdk/index.ts';
import {
  importItems,
  importRules,
  type ImportFormat,
  type ImportRecordItem,
  type ValidateOptions,
} from '../index.ts';
import type { JobRow } from './job-row.ts';
import type { Scope } from './kinds/types.ts';
import { peers } from './peers.ts';
import { openSource } from './source-file.ts';

export async function* sourceRecords(
  storageDir: string,
  job: { id: number; format: ImportFormat },
  options: Omit<ValidateOptions, 'fields'> & { skip?: number },
): AsyncGenerator<ImportRecordItem> {
  let seen = 0;
  for await (const item of importItems(job.format, openSource(storageDir, job.id), options)) {
    if (item.kind === 'warning') continue;
    if (seen++ < (options.skip ?? 0)) continue;
    yield item;
  }
}

/** The status codes Ward's appointments accept, read once per run. */
export async function appointmentStatuses(sdk: WardSdk, job: { id: number }): Promise<Set<string>> {
  return new Set(await peers(sdk).appointments.statuses(jobActing(sdk, job)));
}

/** The job as who acts, for what its runs write. */
export const jobActing = (sdk: WardSdk, job: { id: number }) => sdk.jobActing(`migration_import:${job.id}`);

/** What the kinds' planners and writers need of a run: the same for execute and preview but its mode. */
export async function runScope(sdk: WardSdk, job: JobRow, mode: Scope['mode']): Promise<Scope> {
  const clinic = peers(sdk);
  return {
    jobId: job.id,
    sourceSystem: job.source_system,
    statuses: await appointmentStatuses(sdk, job),
    mode,
    peers: clinic,
    rules: importRules(clinic, clinic.documents.maxBytes()),
    acting: jobActing(sdk, job),
  };
}

/**
 * Batches of `size`, read one batch ahead: the next batch is parsed while the current one is
 * written, so the CPU work of reading overlaps the database's. `return()` closes the source.
 */
export async function* readAhead<T>(batches: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = batches.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done === true) return;
      next = batches.next();
      // Left unawaited while the consumer works; a failure surfaces at the next await.
      next.catch(() => undefined);
      yield current.value;
    }
  } finally {
    await next.catch(() => undefined);
    await batches.return(undefined);
  }
}
