/**
 * What an import produces, whatever the source format. Readers turn a source (Synthea CSV, FHIR
 * JSON or NDJSON) into `SourceItem`s carrying `Raw` records: text exactly as found, nothing
 * checked. `validateImport` turns those into `ImportItem`s carrying canonical records whose every
 * field has been checked and normalised, so the job layer writes only these.
 */
import type { WarningCode } from './warnings.ts';

export type Sex = 'female' | 'male' | 'other' | 'unknown';

/** FHIR R4 Appointment.status; Synthea's encounters are all in the past, so they arrive `fulfilled`. */
export const APPOINTMENT_STATUSES = [
  'proposed',
  'pending',
  'booked',
  'arrived',
  'fulfilled',
  'cancelled',
  'noshow',
  'entered-in-error',
  'checked-in',
  'waitlist',
] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

export interface ImportAddress {
  lines: string[];
  city?: string;
  state?: string;
  postalCode?: string;
  country?: string;
}

export interface ImportPatient {
  /** The patient's id in the source system; with the job's source system, the key of the import mapping. */
  sourceId: string;
  mrn?: string;
  familyName: string;
  /** Given names joined by single spaces. */
  givenName: string;
  /** YYYY-MM-DD, a real calendar day. */
  birthDate: string;
  sex: Sex;
  phone?: string;
  email?: string;
  address?: ImportAddress;
}

export interface ImportAppointment {
  sourceId: string;
  patientSourceId: string;
  practitionerName: string;
  /** UTC, `Date.prototype.toISOString` form, so equal instants compare equal as text. */
  start: string;
  end: string;
  status: AppointmentStatus;
  reason?: string;
}

export interface ImportDocument {
  sourceId: string;
  patientSourceId: string;
  title: string;
  contentType: string;
  /** Lower-case hex; only from sources that carry one. FHIR R4 carries SHA-1 only, in `sha1`. */
  sha256?: string;
  /** Lower-case hex of FHIR's base64 `attachment.hash`. The upload recomputes sha256 whatever the source says. */
  sha1?: string;
  size?: number;
  /** The name, URL or id the binary upload of this document will be matched by. */
  binaryRef: string;
}

export type RecordKind = 'patient' | 'appointment' | 'document';

export interface RecordOf {
  patient: ImportPatient;
  appointment: ImportAppointment;
  document: ImportDocument;
}

export type RawAddress = { [K in keyof ImportAddress]?: ImportAddress[K] };

/** A record as a reader found it: every field text (untrimmed), absent when the source had none. */
export type Raw<T> = { [K in keyof T]?: NonNullable<T[K]> extends ImportAddress ? RawAddress : string };

/**
 * A document as found, with its content when the source carries it inline (FHIR attachment
 * `data`, base64): validation decodes and checks it, and the canonical record keeps only its
 * reference (`inline:<document id>`), hashes and size.
 */
export type RawDocument = Raw<ImportDocument> & { data?: string };

/** What readers find, per kind. */
export interface RawOf {
  patient: Raw<ImportPatient>;
  appointment: Raw<ImportAppointment>;
  document: RawDocument;
}

export type Severity = 'error' | 'warning' | 'info';

export interface ImportWarning {
  /**
   * 1-based: the line a CSV record starts on, the line of an NDJSON resource, the entry number in a
   * JSON Bundle (a minified Bundle is one line, so lines would not tell entries apart).
   */
  row: number;
  /** The CSV column(s), or a JSON pointer into the resource (`/birthDate`); empty when about the whole row or file. */
  field: string;
  code: WarningCode;
  /** `error` blocks executing the job; `warning` and `info` do not. */
  severity: Severity;
  message: string;
}

export interface WarningItem {
  kind: 'warning';
  warning: ImportWarning;
}

/** What a format reader yields. `at` prefixes `field` pointers when the row holds more than one resource. */
export type SourceItem =
  | {
      [K in RecordKind]: {
        kind: K;
        row: number;
        at?: string;
        /** How this record's fields are named when its resource type differs from the format's usual one (an Encounter). */
        fields?: Partial<Record<keyof RawOf[K], string>>;
        record: RawOf[K];
      };
    }[RecordKind]
  | WarningItem;

export type SourceRecordItem = Exclude<SourceItem, WarningItem>;

/** What validation yields: records that passed every check, and the warnings, in source order. */
export type ImportRecordItem = {
  [K in RecordKind]: { kind: K; row: number; record: RecordOf[K] };
}[RecordKind];
export type ImportItem = ImportRecordItem | WarningItem;

/**
 * Where each canonical field comes from in one format (a column, a JSON pointer), for the `field`
 * of validation warnings; a field not listed is reported by its canonical name.
 */
export type SourceFields = { [K in RecordKind]?: Partial<Record<keyof RawOf[K], string>> };

export interface ReadOptions {
  /** Longest CSV record; longer means a quote was left open. Default 1 MiB. */
  maxRecordChars?: number;
  /** Longest NDJSON line. Default `maxEntryChars`. */
  maxLineChars?: number;
  /** Longest single JSON string or number, but inline content (`data`). Default 4 MiB. */
  maxTokenChars?: number;
  /** Longest Bundle entry, or single resource, in characters. Default 64 MiB. */
  maxEntryChars?: number;
  /** Most values one Bundle entry, NDJSON line or single resource may hold, so its memory stays bounded. Default 1,000,000. */
  maxEntryValues?: number;
  /** Largest document content; inline `data` may be as long as its base64 (and line breaks). Default 25 MiB. */
  maxDocumentBytes?: number;
}

/** Bytes of an uploaded file: a Node Readable without an encoding set, or any async iterable of chunks. */
export type ByteSource = AsyncIterable<Uint8Array>;
