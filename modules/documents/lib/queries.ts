/**
 * Reads and writes of `documents_document`. A patient's documents are listed newest first. A
 * soft-deleted row is found only when asked for (`deleted: true`, for restoring it).
 */
import type { Knex } from 'knex';
import type { KeyKind, Page, PageRequest, WardSdk } from '../../../src/sdk/index.ts';
import {
  presentDocument,
  type Category,
  type Document,
  type DocumentRow,
  type NewDocument,
} from './document.ts';

export const TABLE = 'documents_document';

export const SORT_KEY: readonly KeyKind[] = ['integer'];

/** A document that is not deleted, or (with `deleted`) one that is; null otherwise. */
export async function findDocument(knex: Knex, id: number, deleted = false): Promise<Document | null> {
  const row = (await knex(TABLE)
    .where({ id })
    .where((query) => (deleted ? query.whereNotNull('deleted_at') : query.whereNull('deleted_at')))
    .first()) as DocumentRow | undefined;
  return row === undefined ? null : presentDocument(row);
}

export async function findDocuments(knex: Knex, ids: readonly number[]): Promise<Document[]> {
  if (ids.length === 0) return [];
  return ((await knex(TABLE).whereIn('id', ids)) as DocumentRow[]).map(presentDocument);
}

/** Whether a document holds the stored file with this SHA-256. */
export async function fileInUse(knex: Knex, sha256: string): Promise<boolean> {
  return (await knex(TABLE).where({ sha256 }).first('id')) !== undefined;
}

export interface ListFilter {
  category?: Category;
  /** The soft-deleted documents instead of the others. */
  deleted?: boolean;
  /** Text the title or the file name contains, case aside. */
  search?: string;
}

/** `text` as a LIKE pattern matching itself anywhere: its own %, _ and \ taken literally. */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (found) => `\\${found}`)}%`;

export async function listDocuments(
  sdk: WardSdk,
  knex: Knex,
  patientId: number,
  page: PageRequest,
  filter: ListFilter = {},
): Promise<Page<Document>> {
  const query = knex(TABLE).where('patient_id', patientId);
  if (filter.deleted === true) query.whereNotNull('deleted_at');
  else query.whereNull('deleted_at');
  if (filter.category !== undefined) query.where('category', filter.category);
  if (filter.search !== undefined) {
    const pattern = containing(filter.search);
    query.where((inner) => inner.whereILike('title', pattern).orWhereILike('file_name', pattern));
  }
  if (page.after !== null) query.where('id', '<', page.after[0] as number);
  const rows = (await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .offset(page.offset)) as DocumentRow[];
  return sdk.http.toPage(rows, page.limit, (row) => [row.id], presentDocument);
}

/** 404 when the patient was deleted while the file was uploading. */
export async function insertDocument(sdk: WardSdk, knex: Knex, document: NewDocument): Promise<Document> {
  try {
    const [row] = (await knex(TABLE)
      .insert({
        patient_id: document.patientId,
        title: document.title,
        file_name: document.fileName ?? null,
        content_type: document.contentType,
        category: document.category ?? 'other',
        source: document.source ?? 'upload',
        document_date: document.documentDate ?? null,
        sha256: document.sha256,
        size: document.size,
      })
      .returning('*')) as DocumentRow[];
    return presentDocument(row as DocumentRow);
  } catch (error) {
    if (sdk.db.constraintError(error)?.constraint === 'documents_document_patient_id_foreign')
      throw sdk.errors.notFound('patient', document.patientId);
    throw error;
  }
}

/** Marks a document deleted by `userId`; null when there is no such document not yet deleted. */
export async function softDeleteDocument(knex: Knex, id: number, userId: number): Promise<Document | null> {
  const [row] = (await knex(TABLE)
    .where({ id })
    .whereNull('deleted_at')
    .update({ deleted_at: knex.fn.now(), deleted_by: userId })
    .returning('*')) as DocumentRow[];
  return row === undefined ? null : presentDocument(row);
}

/** Undoes a soft delete; null when there is no such deleted document. */
export async function restoreDocument(knex: Knex, id: number): Promise<Document | null> {
  const [row] = (await knex(TABLE)
    .where({ id })
    .whereNotNull('deleted_at')
    .update({ deleted_at: null, deleted_by: null })
    .returning('*')) as DocumentRow[];
  return row === undefined ? null : presentDocument(row);
}
