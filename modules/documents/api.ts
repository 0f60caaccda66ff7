/**
 * The documents module's public API: its rules for a document's title, type and size, its file
 * store, and batch writes of documents, each call on behalf of the caller's acting context. Another
 * module reaches it with `sdk.modules.get<DocumentsApi>('documents')`, never by importing this file.
 *
 * Files are stored by their SHA-256 and shared by every row with the same content, the documents'
 * and other modules' (an import's uploads): `storeFile` and `releaseFile` take the file's lock, so
 * a file is never removed between an upload finding it stored and the row that uses it.
 */
import { rm } from 'node:fs/promises';
import type { Acting, BatchTable, Knex, ModuleApiFactory } from '../../src/sdk/index.ts';
import { withBlobLock, insertUsingBlob } from './lib/blob-lock.ts';
import { blobPath, putBlob, removeAbandonedUploads, tooLarge, type StoredBlob } from './lib/blob-store.ts';
import { DEFAULT_MAX_BYTES, documentMaxBytes } from './lib/config.ts';
import type { Document, Source } from './lib/document.ts';
import { fileInUse, findDocuments, TABLE } from './lib/queries.ts';
import { checkDocumentContentType, checkDocumentTitle } from './lib/upload.ts';

export type { MetaCheck } from './lib/upload.ts';

/** What a batch write gives a document; its file is stored already (`storeFile`). */
export interface DocumentFields {
  patientId: number;
  title: string;
  contentType: string;
  sha256: string;
  size: number;
  /** Where the document came from: `import` for what a migration brings; `upload` when not given. */
  source?: Source;
}

/** One row of `upsertMany`: with `id`, the document to change; without, a new one. */
export type DocumentUpsert = DocumentFields & { id?: number };

export interface StoreOptions {
  /** More bytes than this: 413, and nothing is kept. */
  maxBytes: number;
  /** Lower-case hex the content must hash to, else 422 and nothing is kept. */
  expectedSha256?: string;
}

const SPEC: BatchTable<DocumentFields> = {
  table: TABLE,
  columns: [
    { name: 'patient_id', type: 'int', of: (row) => row.patientId },
    { name: 'title', type: 'text', of: (row) => row.title },
    { name: 'content_type', type: 'text', of: (row) => row.contentType },
    { name: 'sha256', type: 'text', of: (row) => row.sha256 },
    { name: 'size', type: 'bigint', of: (row) => row.size },
    { name: 'source', type: 'text', of: (row) => row.source ?? 'upload' },
  ],
  touch: null,
};

const api = (({ sdk, storageDir }) => {
  const check = (row: DocumentFields, index: number) => {
    const title = checkDocumentTitle(row.title, sdk.text);
    const type = checkDocumentContentType(row.contentType);
    const problem = !title.ok ? title.message : !type.ok ? type.message : null;
    if (problem !== null)
      throw new sdk.errors.WardError(
        'invalid_document',
        `document ${index} of the batch is invalid: ${problem}`,
        'check the row against the documents module’s rules',
      );
  };
  return {
    /** The largest document when WARD_DOCUMENT_MAX_BYTES is not set. */
    defaultMaxBytes: DEFAULT_MAX_BYTES,
    /** The largest document Ward accepts (WARD_DOCUMENT_MAX_BYTES); throws WardError `invalid_setting`. */
    maxBytes: (): number => documentMaxBytes(sdk),
    /** The title rule: trimmed, NFC, present, at most 255 characters; with `text`, no invisible character. */
    checkTitle: checkDocumentTitle,
    /** The content type rule: a media type, application/octet-stream when there is none. */
    checkContentType: checkDocumentContentType,
    /**
     * Removes the partial files of uploads whose backend died before they ended (never one a live
     * upload writes); returns their names. For a sweeper that runs while backends live.
     */
    removeUnfinishedUploads: (): Promise<string[]> => removeAbandonedUploads(sdk, storageDir),
    /** The 413 of a file over `maxBytes`, naming the setting. */
    tooLarge: (maxBytes: number) => tooLarge(sdk, maxBytes),

    /** The documents among these ids that exist, in no particular order. */
    getMany(acting: Acting, ids: readonly number[]): Promise<Document[]> {
      return findDocuments(acting.knex, ids);
    },

    /**
     * Stores the bytes of `source` by their SHA-256 (413 over `maxBytes`, 422 for another checksum
     * than expected), then runs `record` in a transaction of `acting` that holds the file's lock and
     * has made sure the file is still there: `record` writes the caller's row that uses it. A file
     * removed meanwhile (its last use purged) is 503 `upload_interrupted`, and nothing is saved.
     * `record` gets the acting context bound to that transaction too, to record its audit row in it.
     */
    async storeFile<T>(
      acting: Acting,
      source: AsyncIterable<Uint8Array>,
      options: StoreOptions,
      record: (trx: Knex.Transaction, stored: StoredBlob, bound: Acting) => Promise<T>,
    ): Promise<{ stored: StoredBlob; recorded: T }> {
      const stored = await putBlob(sdk, storageDir, source, options);
      const recorded = await insertUsingBlob(sdk, acting, storageDir, stored.sha256, (trx, bound) =>
        record(trx, stored, bound),
      );
      return { stored, recorded };
    },

    /**
     * Removes the stored file with this SHA-256 unless a document uses it or `inUse` (run under the
     * file's lock, in the same transaction) says the caller's rows still do. Returns whether it went.
     */
    releaseFile(
      acting: Acting,
      sha256: string,
      inUse: (trx: Knex.Transaction) => Promise<boolean>,
    ): Promise<boolean> {
      return withBlobLock(acting, sha256, async (trx) => {
        if ((await fileInUse(trx, sha256)) || (await inUse(trx))) return false;
        await rm(blobPath(storageDir, sha256), { force: true });
        return true;
      });
    },

    /**
     * Creates and changes many documents in the caller's transaction, their files stored already:
     * one INSERT and one UPDATE whatever their number. Returns each row's id, in the order given. A
     * title or content type breaking the module's rules throws WardError `invalid_document`, and
     * nothing is written; a patient that does not exist fails the batch (foreign key).
     */
    async upsertMany(acting: Acting, rows: readonly DocumentUpsert[]): Promise<number[]> {
      rows.forEach(check);
      return acting.transaction(async (trx, bound) => {
        const ids = await sdk.batch.upsertRows(
          trx,
          SPEC,
          rows.map((row) => ({ id: row.id, columns: row })),
        );
        await sdk.audit.batch(bound, 'document', rows, ids);
        return ids;
      });
    },
  };
}) satisfies ModuleApiFactory<object>;

export type DocumentsApi = ReturnType<typeof api>;
export default api;
