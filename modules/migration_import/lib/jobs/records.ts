/**
 * The records of a stored source, as execute and preview read them: streamed from the file,
 * validated on the way, warnings dropped (validation recorded them), the first `skip` passed over.
 */
import type { Knex } from 'knex';
import { importItems, type ImportFormat, type ImportRecordItem, type ValidateOptions } from '../index.ts';
import { openSource } from './source-file.ts';

export async function* sourceRecords(
  storageDir: string,
  job: { id: number; format: ImportFormat },
  options: Omit<ValidateOptions, 'fields'> & { skip?: number } = {},
): AsyncGenerator<ImportRecordItem> {
  let seen = 0;
  for await (const item of importItems(job.format, openSource(storageDir, job.id), options)) {
    if (item.kind === 'warning') continue;
    if (seen++ < (options.skip ?? 0)) continue;
    yield item;
  }
}

/** Codes Ward accepts in `appointments_status`, read once per run. */
export async function appointmentStatuses(knex: Knex): Promise<Set<string>> {
  return new Set((await knex('appointments_status').pluck('code')) as string[]);
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
