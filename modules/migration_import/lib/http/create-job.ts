/**
 * POST /jobs: the request body is the source file itself, streamed to storage as it arrives
 * (`--data-binary @patients.csv`); what it is comes in the query: `?format=` and `?source_system=`.
 * Only the envelope is checked here (size, not empty, not compressed); what is inside, encoding
 * included, is validation's to report, row by row, as the job's warnings.
 */
import type { Knex } from 'knex';
import type { Context, WardSdk } from '../../../../src/sdk/index.ts';
import { jobView } from '../jobs/job-row.ts';
import { insertJob } from '../jobs/job-store.ts';
import { receiveSource, TooLarge, type ReceivedFile } from '../jobs/source-file.ts';
import { sourceParams } from './params.ts';

const tooLarge = (sdk: WardSdk, limit: number) =>
  sdk.errors.bodyTooLarge(
    'the source file',
    limit,
    'split the export into several files, one job each (the operator sets the limit with WARD_IMPORT_MAX_SOURCE_SIZE)',
  );

const emptySource = (sdk: WardSdk) =>
  new sdk.errors.ApiError(
    400,
    'empty_source',
    'the request has no body: the source file is the request body',
    'send the file as the body, e.g. curl --data-binary @patients.csv',
  );

export async function createJob(
  ctx: Context,
  deps: { sdk: WardSdk; knex: Knex; storageDir: string; maxSourceBytes: number; mount: string },
): Promise<void> {
  const { sdk } = deps;
  const { format, sourceSystem } = sourceParams(sdk, ctx);
  sdk.http.refuseEncoded(ctx);
  const limit = deps.maxSourceBytes;
  if ((ctx.request.length ?? 0) > limit) throw tooLarge(sdk, limit);
  let received: ReceivedFile;
  try {
    received = await receiveSource(deps.sdk.files, deps.storageDir, ctx.req, limit);
  } catch (error) {
    if (error instanceof TooLarge) throw tooLarge(sdk, limit);
    if ((error as NodeJS.ErrnoException).code === 'ECONNRESET')
      throw new sdk.errors.ApiError(
        400,
        'upload_incomplete',
        'the upload ended before the whole file arrived',
        'send the file again',
        {
          cause: error,
        },
      );
    throw error;
  }
  if (received.bytes === 0) {
    await received.discard();
    throw emptySource(sdk);
  }
  const caller = sdk.http.caller(ctx);
  try {
    const row = await sdk.acting(ctx).transaction(async (trx, acting) => {
      const job = await insertJob(trx, {
        sourceSystem,
        format,
        sourceBytes: received.bytes,
        sourceSha256: received.sha256,
        createdById: caller.userId,
        createdBy: caller.username,
      });
      await received.keepAs(job.id);
      await sdk.audit.record(acting, {
        action: 'import.create',
        kind: 'import_job',
        recordId: job.id,
        detail: { format, sourceSystem, sourceBytes: received.bytes, sourceSha256: received.sha256 },
      });
      return job;
    });
    ctx.status = 201;
    ctx.set('Location', `${deps.mount}/jobs/${row.id}`);
    ctx.body = jobView(row);
  } catch (error) {
    await received.discard();
    throw error;
  }
}
