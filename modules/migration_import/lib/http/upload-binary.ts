/**
 * POST /jobs/{id}/binaries?ref=<reference>: the body is one file a document of the source refers
 * to (its FHIR attachment url, say), with its SHA-256 declared in X-Content-SHA256 and verified
 * as it is stored. The reference is only ever a database value; the file's place in storage
 * comes from its hash. The same file under the same reference again is answered 200 as a
 * duplicate without storing anything; a different file under a taken reference is refused.
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import type { WardSdk } from '../../../../src/sdk/index.ts';
import { tooLarge } from '../../../documents/lib/blob-store.ts';
import { INLINE_PREFIX } from '../checks.ts';
import { binaryView, findBinary, storeBinary } from '../jobs/binary-store.ts';
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

export async function uploadBinary(
  ctx: Context,
  deps: { sdk: WardSdk; knex: Knex; storageDir: string; maxBytes: number },
): Promise<void> {
  const { sdk } = deps;
  const id = jobId(sdk, ctx);
  await foundJob(sdk, deps.knex, id);
  const ref = reference(sdk, ctx);
  const sha256 = declaredSha256(sdk, ctx);
  sdk.http.refuseEncoded(ctx);
  if ((ctx.request.length ?? 0) > deps.maxBytes) throw tooLarge(sdk, deps.maxBytes);
  const conflict = (held: string) =>
    new sdk.errors.ApiError(
      409,
      'binary_conflict',
      `reference ${JSON.stringify(ref)} of job ${id} already holds a different file (SHA-256 ${held})`,
      'a reference names one file: check which file the source means, or create a new job for a corrected source',
    );
  const existing = await findBinary(deps.knex, id, ref);
  if (existing !== undefined) {
    if (existing.sha256 !== sha256) throw conflict(existing.sha256);
    ctx.status = 200;
    ctx.body = { ...binaryView(existing), duplicate: true };
    return;
  }
  const type = ctx.get('Content-Type').trim();
  const stored = await storeBinary(
    sdk,
    deps.knex,
    deps.storageDir,
    ctx.req,
    {
      jobId: id,
      ref,
      sha256,
      contentType: type === '' ? null : type.slice(0, 255),
      createdBy: sdk.http.caller(ctx).username,
    },
    deps.maxBytes,
  );
  if (!stored.inserted && stored.row.sha256 !== sha256) throw conflict(stored.row.sha256);
  ctx.status = stored.inserted ? 201 : 200;
  ctx.body = { ...binaryView(stored.row), duplicate: !stored.inserted };
}
