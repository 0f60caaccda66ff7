/**
 * Validation, in the background: read every row of the stored source, record every warning
 * (batched), count the records that would be written, and end `validated`, or `invalid` when any
 * warning is an error. Besides the lib's checks, it checks what only the database knows: patients
 * imported before, binaries uploaded so far, and the appointment statuses Ward accepts. A run that
 * dies is simply run again from the top: it replaces the job's warnings.
 */
import type { Knex } from 'knex';
import type { WardSdk } from '../../../../src/sdk/index.ts';
import { importItems, sourceFields, type RecordKind } from '../index.ts';
import { warn } from '../warnings.ts';
import { BINARIES } from './binary-store.ts';
import type { JobRow } from './job-row.ts';
import type { Lease } from './lease.ts';
import { appointmentStatuses } from './records.ts';
import { openSource } from './source-file.ts';
import { knownPatients } from './source-map.ts';
import { WarningWriter, deleteWarnings } from './warning-store.ts';

export interface ValidateDeps {
  knex: Knex;
  storageDir: string;
  sdk: WardSdk;
}

export async function validateRun(deps: ValidateDeps, job: JobRow, lease: Lease): Promise<void> {
  const { knex } = deps;
  await deleteWarnings(knex, lease);
  const statuses = await appointmentStatuses(knex);
  const statusField = sourceFields(job.format).appointment?.status ?? 'status';
  const writer = new WarningWriter(knex, lease, 'validate');
  const records: Record<RecordKind, number> = { patient: 0, appointment: 0, document: 0 };
  const items = importItems(job.format, openSource(deps.storageDir, job.id), {
    text: deps.sdk.text,
    knownPatient: knownPatients(knex, job.source_system),
    hasBinary: async (ref) => (await knex(BINARIES).where({ job_id: job.id, ref }).first('id')) !== undefined,
  });
  for await (const item of items) {
    if (item.kind === 'warning') await writer.add(item.warning);
    else if (item.kind === 'appointment' && !statuses.has(item.record.status))
      await writer.add(
        warn.unknownStatus({ row: item.row, field: statusField }, item.record.status, [...statuses]),
      );
    else records[item.kind]++;
  }
  await writer.flush();
  await lease.release(knex, {
    state: writer.counts.error > 0 ? 'invalid' : 'validated',
    counts: { records, warnings: writer.counts },
    rows_total: records.patient + records.appointment + records.document,
    validated_at: knex.fn.now(),
  });
}
