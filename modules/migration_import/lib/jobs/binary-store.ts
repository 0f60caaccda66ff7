/**
 * Binaries uploaded to a job: the bytes go to the documents module's content-addressed store
 * (through its API: their path is their SHA-256, never a client's name), and a row records which
 * reference of the source they answer. One reference holds one file: the same file again is
 * recognised as a duplicate, a different one is refused.
 */
import type { Knex } from 'knex';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import type { Acting, WardSdk } from '../../../../src/sdk/index.ts';
import { TABLE as JOBS } from './lease.ts';
import { peers } from './peers.ts';
import { Meter } from './source-file.ts';

export const BINARIES = 'migration_import_binary';

export interface BinaryRow {
  ref: string;
  sha256: string;
  sha1: string;
  size: string | number;
  content_type: string | null;
  created_by: string;
  created_at: Date;
}

export function binaryView(row: BinaryRow) {
  return {
    ref: row.ref,
    sha256: row.sha256,
    sha1: row.sha1,
    size: Number(row.size),
    contentType: row.content_type,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

export async function findBinary(knex: Knex, jobId: number, ref: string): Promise<BinaryRow | undefined> {
  return (await knex(BINARIES).where({ job_id: jobId, ref }).first()) as BinaryRow | undefined;
}

/** The audit event of an upload: the file's reference, hash and size, and whether it was there already. */
export const uploadEvent = (
  upload: Pick<Upload, 'jobId' | 'ref' | 'sha256'>,
  size: string | number,
  duplicate: boolean,
) => ({
  action: 'import.upload',
  kind: 'import_job',
  recordId: upload.jobId,
  detail: { ref: upload.ref, sha256: upload.sha256, size: Number(size), duplicate },
});

export interface Upload {
  jobId: number;
  ref: string;
  sha256: string;
  contentType: string | null;
  createdBy: string;
}

/**
 * The row now under (job, ref): the new one, or the one a concurrent upload of the same reference
 * made; null when the job was purged meanwhile (its bytes then stay only if something else holds
 * the same content, as a purge leaves them).
 */
export async function storeBinary(
  sdk: WardSdk,
  acting: Acting,
  body: Readable,
  upload: Upload,
  maxBytes: number,
): Promise<{ row: BinaryRow; inserted: boolean } | null> {
  // SHA-1 besides the store's SHA-256: FHIR attachments declare a SHA-1, which execute checks.
  const meter = new Meter(Number.MAX_SAFE_INTEGER, ['sha1']);
  const hashed = pipeline(body, meter, () => undefined);
  // Only while the job is not purged: a purge that committed while the body streamed in has
  // deleted the job's binaries and must not find one come back.
  const { recorded: result } = await peers(sdk).documents.storeFile(
    acting,
    hashed,
    { maxBytes, expectedSha256: upload.sha256 },
    async (trx, stored, bound) => {
      const inserted = (await trx.raw(
        `insert into ${BINARIES} (job_id, ref, sha256, sha1, size, content_type, created_by)
     select ?::int, ?::text, ?::char(64), ?::char(40), ?::bigint, ?::varchar(255), ?::varchar(100)
     where exists (select 1 from ${JOBS} where id = ? and purged_at is null)
     on conflict (job_id, ref) do nothing
     returning *`,
        [
          upload.jobId,
          upload.ref,
          stored.sha256,
          meter.digests().sha1,
          stored.size,
          upload.contentType,
          upload.createdBy,
          upload.jobId,
        ],
      )) as { rows: BinaryRow[] };
      // Recorded with the row it stored, in its transaction: a rolled-back upload leaves no row.
      if (inserted.rows.length > 0) await sdk.audit.record(bound, uploadEvent(upload, stored.size, false));
      return inserted;
    },
  );
  const [row] = result.rows;
  if (row !== undefined) return { row, inserted: true };
  const held = await findBinary(acting.knex, upload.jobId, upload.ref);
  return held === undefined ? null : { row: held, inserted: false };
}
