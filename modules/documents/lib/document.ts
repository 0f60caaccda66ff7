/** A document's metadata as the API shows it (camelCase) and as `documents_document` stores it. */
export interface Document {
  id: number;
  patientId: number;
  title: string;
  contentType: string;
  sha256: string;
  size: number;
  createdAt: Date;
}

export interface DocumentRow {
  id: number;
  patient_id: number;
  title: string;
  content_type: string;
  sha256: string;
  /** bigint: node-postgres gives it as text, so that no value loses precision. */
  size: string;
  created_at: Date;
}

export type NewDocument = Omit<Document, 'id' | 'createdAt'>;

export function presentDocument(row: DocumentRow): Document {
  return {
    id: row.id,
    patientId: row.patient_id,
    title: row.title,
    contentType: row.content_type,
    sha256: row.sha256,
    // Exact: the size limit keeps every stored size far below 2^53.
    size: Number(row.size),
    createdAt: row.created_at,
  };
}
