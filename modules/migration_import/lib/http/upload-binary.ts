/**
 * POST /jobs/{id}/binaries?ref=<reference>: the body is one file a document of the source refers
 * to (its FHIR attachment url, say), with its SHA-256 declared in X-Content-SHA256 and verified
 * as it is stored. The reference is only ever a database value; the file's place in storage
 * comes from its hash. Only a job that may still read the file takes it (a FHIR job that has not
 * succeeded, not purged). The same file under the same reference again is answered 200 as a duplicate once
 * its body is verified, storing nothing; a different file under a taken reference is refused
 * without saying what the reference holds.
 */
import type { Knex } from 'knex';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context, WardSdk } from '../../../../src/sdk/index.ts';
import { INLINE_PREFIX } from '../checks.ts';
import { binaryView, findBinary, storeBinary, uploadEvent } from '../jobs/binary-store.ts';
import { peers } from '../jobs/peers.ts';
import type { JobRow } from '../jobs/job-row.ts';
import { Meter, TooLarge } from '../jobs/source-file.ts';
import { purged } from './errors.ts';
import { foundJob, jobId } from './params.ts';

const SHA256 = /^[0-9a-fA-F]{64}$/;
const MAX_REF = 1024;

function declaredSha256(sdk: WardSdk, ctx: Context): string {
  const value = ctx.get('X-Content-SHA256').trim();
  if (value === '')
    throw new sdk.errors.ApiError(
      400,
      'missing_checksum',
      'the upload has no X-Content-SHA256 header, so its content cannot be verified',
      'send the SHA-256 of the file as 64 hex digits in X-Content-SHA256 (sha256sum <file>)',
    );
  if (!SHA256.test(value))
    throw new sdk.errors.ApiError(
      422,
      'invalid_checksum',
      `X-Content-SHA256 ${JSON.stringify(value)} is not 64 hex digits`,
      'send the SHA-256 of the file as 64 hex digits (sha256sum <file>)',
    );
  return value.toLowerCase();
}

function reference(sdk: WardSdk, ctx: Context): string {
  const ref = sdk.http.queryText(ctx, 'ref');
  if (ref === undefined)
    throw sdk.errors.invalidQuery(
      'ref',
      'is missing; give the reference the source uses for this file (a FHIR attachment url, say)',
    );
  // eslint-disable-next-line no-control-regex
  if (ref.length > MAX_REF || /[\u0000-\u001f\u007f]/.test(ref))
    throw sdk.errors.invalidQuery('ref', `must be at most ${MAX_REF} characters without control characters`);
  // The source's inline attachments are stored under these references; an upload may not take one.
  if (ref.startsWith(INLINE_PREFIX))
    throw sdk.errors.invalidQuery(
      'ref',
      `must not start with ${JSON.stringify(INLINE_PREFIX)}: that names content the source carries inline`,
    );
  return ref;
}

/** Formats whose records may refer to files: the FHIR ones (a DocumentReference's attachment url). */
const REFERS_TO_FILES: ReadonlySet<string> = new Set(['fhir-json', 'fhir-ndjson']);

/**
 * Jobs whose runs may still read an upload: any but a CSV job (CSV formats have no documents) and
 * a job that succeeded (every record written; nothing left to retry). A partially succeeded or
 * failed job may still be executed again, and that retry reads the binaries uploaded since.
 */
function refuseUnusable(sdk: WardSdk, job: JobRow): void {
  if (job.purged_at !== null) throw purged(sdk, job);
  if (!REFERS_TO_FILES.has(job.format))
    throw new sdk.errors.ApiError(
      409,
      'binaries_not_used',
      `job ${job.id} imports ${job.format}, which refers to no files, so it has no use for a binary`,
      'upload binaries to the job of the FHIR export whose documents refer to them',
    );
  if (job.state === 'succeeded')
    throw new sdk.errors.ApiError(
      409,
      'job_finished',
      `job ${job.id} has succeeded: every record it holds is written, and no run of it will read a binary again`,
      'upload the file to the job of the export that refers to it; to import a corrected source, create a new job',
    );
}

/** The SHA-256 of the body, read without storing it (size-limited): proof the caller holds the file. */
async function bodySha256(sdk: WardSdk, body: Readable, maxBytes: number): Promise<string> {
  const meter = new Meter(maxBytes, ['sha256']);
  try {
    await pipeline(body, meter, new Writable({ write: (_chunk, _encoding, done) => done() }));
  } catch (error) {
    if (error instanceof TooLarge) throw peers(sdk).documents.tooLarge(maxBytes);
    throw error;
  }
  return meter.digests().sha256;
}

export async function uploadBinary(
  ctx: Context,
  deps: { sdk: WardSdk; knex: Knex; maxBytes: number },
): Promise<void> {
  const { sdk } = deps;
  const id = jobId(sdk, ctx);
  const job = await foundJob(sdk, deps.knex, id);
  const ref = reference(sdk, ctx);
  const sha256 = declaredSha256(sdk, ctx);
  sdk.http.refuseEncoded(ctx);
  if ((ctx.request.length ?? 0) > deps.maxBytes) throw peers(sdk).documents.tooLarge(deps.maxBytes);
  // Before anything about the job's binaries is looked at, so a job that cannot use one tells nothing.
  refuseUnusable(sdk, job);
  // The held file's hash is not repeated: only that the reference is taken, which the caller needs to know.
  const conflict = () =>
    new sdk.errors.ApiError(
      409,
      'binary_conflict',
      `reference ${JSON.stringify(ref)} of job ${id} already holds a different file`,
      'a reference names one file: check which file the source means, or create a new job for a corrected source',
    );
  const existing = await findBinary(deps.knex, id, ref);
  if (existing !== undefined) {
    // A duplicate only once the body proves it: a declared hash alone must not confirm what a job holds.
    const actual = await bodySha256(sdk, ctx.req, deps.maxBytes);
    if (actual !== sha256) throw checksumMismatch(sdk, actual, sha256);
    if (existing.sha256 !== sha256) throw conflict();
    await sdk.audit.record(sdk.acting(ctx), uploadEvent({ jobId: id, ref, sha256 }, existing.size, true));
    ctx.status = 200;
    ctx.body = { ...binaryView(existing), duplicate: true };
    return;
  }
  const type = ctx.get('Content-Type').trim();
  const upload = {
    jobId: id,
    ref,
    sha256,
    contentType: type === '' ? null : type.slice(0, 255),
    createdBy: sdk.http.caller(ctx).username,
  };
  const stored = await storeBinary(sdk, sdk.acting(ctx), ctx.req, upload, deps.maxBytes);
  if (stored === null) throw purged(sdk, await foundJob(sdk, deps.knex, id));
  if (!stored.inserted && stored.row.sha256 !== sha256) throw conflict();
  // A new file was recorded with its row; a duplicate (a concurrent upload of the same file) stored nothing.
  if (!stored.inserted) await sdk.audit.record(sdk.acting(ctx), uploadEvent(upload, stored.row.size, true));
  ctx.status = stored.inserted ? 201 : 200;
  ctx.body = { ...binaryView(stored.row), duplicate: !stored.inserted };
}

/** The same refusal the documents store gives a body that is not the declared file. */
const checksumMismatch = (sdk: WardSdk, actual: string, expected: string) =>
  new sdk.errors.ApiError(
    422,
    'checksum_mismatch',
    `the file's SHA-256 is ${actual}, not the expected ${expected}`,
    'the file changed or was cut short on the way: send it again',
  );
