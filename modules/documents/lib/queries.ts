/** Reads and writes of `documents_document`. A patient's documents are listed newest first. */
import type { Knex } from 'knex';
import type { KeyKind, Page, PageRequest, WardSdk } from '../../../src/sdk/index.ts';
import { presentDocument, type Document, type DocumentRow, type NewDocument } from './document.ts';

export const TABLE = 'documents_document';

export const SORT_KEY: readonly KeyKind[] = ['integer'];

export async function findDocument(knex: Knex, id: number): Promise<Document | null> {
  const row = (await knex(TABLE).where({ id }).first()) as DocumentRow | undefined;
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

export async function listDocuments(
  sdk: WardSdk,
  knex: Knex,
  patientId: number,
  page: PageRequest,
): Promise<Page<Document>> {
  const query = knex(TABLE).where('patient_id', patientId);
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
        content_type: document.contentType,
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
