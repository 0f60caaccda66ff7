/**
 * One stored file may be shared by several rows (documents, migration_import binaries) with the
 * same content. Whoever removes an unused file, and whoever adds a row for a file, holds the file's
 * lock (a PostgreSQL advisory lock on its SHA-256, for the transaction): the remover checks that no
 * row uses the file and removes it under the lock, and the adder checks that the file is still
 * there and inserts its row under the lock. So a file is never removed between an upload finding it
 * stored and that upload's row, which would leave a row without its file.
 */
import { stat } from 'node:fs/promises';
import type { Acting, Knex, WardSdk } from '../../../src/sdk/index.ts';
import { blobPath } from './blob-store.ts';

/** Runs `work` in a transaction of `acting` that holds the lock of the file with this SHA-256. */
export function withBlobLock<T>(
  acting: Acting,
  sha256: string,
  work: (trx: Knex.Transaction, bound: Acting) => Promise<T>,
): Promise<T> {
  return acting.transaction(async (trx, bound) => {
    await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`ward-blob:${sha256}`]);
    return work(trx, bound);
  });
}

/**
 * For an upload whose bytes were found stored already: under the file's lock, makes sure it is
 * still there before `insert` adds the row that uses it. A file removed meanwhile (the last row
 * using it was purged) means the upload must be sent again: nothing is saved.
 */
export function insertUsingBlob<T>(
  sdk: WardSdk,
  acting: Acting,
  storageDir: string,
  sha256: string,
  insert: (trx: Knex.Transaction, bound: Acting) => Promise<T>,
): Promise<T> {
  return withBlobLock(acting, sha256, async (trx, bound) => {
    const there = await stat(blobPath(storageDir, sha256)).then(
      () => true,
      () => false,
    );
    if (!there)
      throw new sdk.errors.ApiError(
        503,
        'upload_interrupted',
        'the stored file was removed while this upload finished (its last use was purged); nothing was saved',
        'send the file again',
      );
    return insert(trx, bound);
  });
}
