/**
 * Validation, in the background: read every row of the stored source, record every warning
 * (batched), count the records that would be written, and end `validated`, or `invalid` when any
 * warning is an error. Besides the lib's checks, it checks what only the database knows: patients
 * imported before, binaries uploaded so far, and the appointment statuses Ward accepts. Documents
 * whose content the source carries inline are stored as this job's binaries (under `inline:<id>`),
 * just as an upload would store them, once they pass every check. A run that
 * dies is simply run again from the top: it replaces the job's warnings.
 *
 * It publishes its progress the way execute does, on the job's `rows_done` / `rows_total`: rows
 * read so far, out of the rows the source holds as estimated from the share of its bytes read (the
 * row count is only known at the end). At the end `rows_total` becomes the records that would be
 * written and `rows_done` execute's checkpoint again, 0; the view shows a validated job at 100%.
 */
import { channel } from 'node:diagnostics_channel';
import { createHash } from 'node:crypto';
import { pipeline, Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { WardSdk } from '../../../../src/sdk/index.ts';
import { importItems, importRules, sourceFields, type RecordKind } from '../index.ts';
import { warn } from '../warnings.ts';
import { BINARIES, storeBinary } from './binary-store.ts';
import type { JobRow } from './job-row.ts';
import type { Lease } from './lease.ts';
import { peers } from './peers.ts';
import { appointmentStatuses, jobActing } from './records.ts';
import { Meter, openSource } from './source-file.ts';
import { knownPatients } from './source-map.ts';
import { WarningWriter, deleteWarnings } from './warning-store.ts';

export interface ValidateDeps {
  knex: Knex;
  storageDir: string;
  sdk: WardSdk;
  /** The documents module's upload limit, which inline content is held to as well; its default when left out. */
  maxDocumentBytes?: number;
  /** Most warnings the run stores (WARD_IMPORT_MAX_WARNINGS); the rest are counted and summed up. */
  maxWarnings?: number;
}

/** Progress is written at most once per this many rows and this many milliseconds: a row costs no query. */
const PROGRESS_ROWS = 500;
const PROGRESS_MS = 250;

/**
 * Each progress write of a validate run, published on a named, process-wide channel (free when
 * nobody subscribes) just after it commits: `{ job, done, total, hold }`. The run then waits for
 * the promises a subscriber pushed onto `hold`, so a test can look at a job mid-validation without
 * racing it; the module has no test switch.
 */
const progressEvents = channel('ward.migration_import.validate_progress');

/** Rows in the whole source, estimated from the `rows` in its first `read` bytes; never reached before the end. */
const sha256Of = (content: Uint8Array): string => createHash('sha256').update(content).digest('hex');

export const estimatedRows = (rows: number, read: number, bytes: number): number =>
  Math.max(rows + 1, read === 0 ? 0 : Math.round((rows * bytes) / read));

class ProgressWriter {
  readonly #lease: Lease;
  readonly #knex: Knex;
  readonly #meter: Meter<never>;
  readonly #bytes: number;
  #rows = 0;
  #lastRow = 0;
  #writtenRows = 0;
  #writtenAt = Number.NEGATIVE_INFINITY;

  constructor(knex: Knex, lease: Lease, meter: Meter<never>, bytes: number) {
    this.#knex = knex;
    this.#lease = lease;
    this.#meter = meter;
    this.#bytes = bytes;
  }

  /** Counts `row` (a row may yield several items) and writes the progress when it is due. */
  async row(row: number): Promise<void> {
    if (row === this.#lastRow) return;
    this.#lastRow = row;
    this.#rows++;
    if (this.#rows - this.#writtenRows < PROGRESS_ROWS || Date.now() - this.#writtenAt < PROGRESS_MS) return;
    this.#writtenRows = this.#rows;
    const done = this.#rows;
    const total = estimatedRows(done, this.#meter.bytes, this.#bytes);
    await this.#lease.update(this.#knex, { rows_done: done, rows_total: total });
    this.#writtenAt = Date.now();
    const hold: Array<Promise<unknown>> = [];
    progressEvents.publish({ job: this.#lease.jobId, done, total, hold });
    await Promise.all(hold);
  }
}

export async function validateRun(deps: ValidateDeps, job: JobRow, lease: Lease): Promise<void> {
  const { knex } = deps;
  const clinic = peers(deps.sdk);
  const maxDocumentBytes = deps.maxDocumentBytes ?? clinic.documents.defaultMaxBytes;
  await deleteWarnings(knex, lease);
  const statuses = await appointmentStatuses(deps.sdk, job);
  const statusField = sourceFields(job.format).appointment?.status ?? 'status';
  const writer = new WarningWriter(knex, lease, 'validate', { limit: deps.maxWarnings });
  const records: Record<RecordKind, number> = { patient: 0, appointment: 0, document: 0 };
  const meter = new Meter<never>(Number.POSITIVE_INFINITY, []);
  // A read error destroys the meter with it, so it surfaces where the items are read.
  pipeline(openSource(deps.storageDir, job.id), meter, () => undefined);
  const progress = new ProgressWriter(knex, lease, meter, Number(job.source_bytes));
  const items = importItems(job.format, meter, {
    rules: importRules(clinic, maxDocumentBytes),
    text: deps.sdk.text,
    knownPatient: knownPatients(knex, job.source_system),
    hasBinary: async (ref) => (await knex(BINARIES).where({ job_id: job.id, ref }).first('id')) !== undefined,
    maxDocumentBytes,
    storeInline: (ref, content, contentType) =>
      storeBinary(
        deps.sdk,
        jobActing(deps.sdk, job),
        Readable.from([content]),
        { jobId: job.id, ref, sha256: sha256Of(content), contentType, createdBy: job.created_by },
        maxDocumentBytes,
      ).then(() => null),
  });
  for await (const item of items) {
    await progress.row(item.kind === 'warning' ? item.warning.row : item.row);
    if (item.kind === 'warning') await writer.add(item.warning);
    else if (item.kind === 'appointment' && !statuses.has(item.record.status))
      await writer.add(
        warn.unknownStatus({ row: item.row, field: statusField }, item.record.status, [...statuses]),
      );
    else records[item.kind]++;
  }
  await writer.finish();
  const total = records.patient + records.appointment + records.document;
  await lease.release(knex, {
    state: writer.counts.error > 0 ? 'invalid' : 'validated',
    counts: { records, warnings: writer.counts },
    rows_total: total,
    // Back to execute's checkpoint: a fresh execute run starts at its first row.
    rows_done: 0,
    validated_at: knex.fn.now(),
  });
}
