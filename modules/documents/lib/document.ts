/** A document's metadata as the API shows it (camelCase) and as `documents_document` stores it. */

/** The fixed list of categories, documented in docs/clinic-modules.md; `other` is the default. */
export const CATEGORIES = [
  'letter',
  'lab_result',
  'imaging',
  'referral',
  'consent',
  'note',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export function isCategory(value: string): value is Category {
  return (CATEGORIES as readonly string[]).includes(value);
}

/** `upload`: sent through Ward; `import`: brought by a migration, dated by its source. */
export type Source = 'upload' | 'import';

export interface Document {
  id: number;
  patientId: number;
  title: string;
  /** The original file name, which names the download; the title for rows stored before it was kept. */
  fileName: string;
  contentType: string;
  category: Category;
  source: Source;
  /** The date the document bears (YYYY-MM-DD), for imports the one the source gives; null when unknown. */
  documentDate: string | null;
  sha256: string;
  size: number;
  createdAt: Date;
  /** Set only when a soft-deleted document is shown to someone who may restore it. */
  deletedAt: Date | null;
  deletedBy: number | null;
}

export interface DocumentRow {
  id: number;
  patient_id: number;
  title: string;
  file_name: string | null;
  content_type: string;
  category: Category;
  source: Source;
  /** node-postgres reads a `date` as local midnight of that day. */
  document_date: Date | null;
  sha256: string;
  /** bigint: node-postgres gives it as text, so that no value loses precision. */
  size: string;
  created_at: Date;
  deleted_at: Date | null;
  deleted_by: number | null;
}

export interface NewDocument {
  patientId: number;
  title: string;
  contentType: string;
  sha256: string;
  size: number;
  fileName?: string;
  category?: Category;
  source?: Source;
  documentDate?: string | null;
}

const pad = (value: number) => String(value).padStart(2, '0');

export function presentDocument(row: DocumentRow): Document {
  const date = row.document_date;
  return {
    id: row.id,
    patientId: row.patient_id,
    title: row.title,
    fileName: row.file_name ?? row.title,
    contentType: row.content_type,
    category: row.category,
    source: row.source,
    documentDate:
      date === null ? null : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`,
    sha256: row.sha256,
    // Exact: the size limit keeps every stored size far below 2^53.
    size: Number(row.size),
    createdAt: row.created_at,
    deletedAt: row.deleted_at,
    deletedBy: row.deleted_by,
  };
}
