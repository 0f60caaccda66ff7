/**
 * Every warning an import can record, with its code, severity and exact text, in one place: the
 * HTTP layer documents these codes, and tests assert these texts. Messages say what was found, what
 * was expected, and what to do.
 */
import type { ImportWarning, RecordKind, Severity } from './records.ts';

export const WARNING_CODES = [
  'bad_encoding',
  'empty_file',
  'missing_columns',
  'csv_column_count',
  'csv_unclosed_quote',
  'csv_bad_quote',
  'record_too_long',
  'json_syntax',
  'fhir_not_a_resource',
  'fhir_unsupported_resource',
  'missing_field',
  'value_too_long',
  'nul_character',
  'invisible_character',
  'bad_date',
  'bad_timestamp',
  'unknown_sex_code',
  'unknown_status',
  'duplicate_id',
  'unknown_patient',
  'end_before_start',
  'binary_missing',
  'bad_hash',
  'bad_size',
  'invalid_title',
  'invalid_content_type',
  'bad_base64',
  'content_too_large',
  'binary_mismatch',
  'json_inexact_number',
  'json_duplicate_key',
  'duplicate_column',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export interface At {
  row: number;
  field?: string;
}

const make = (at: At, code: WarningCode, severity: Severity, message: string): ImportWarning => ({
  row: at.row,
  field: at.field ?? '',
  code,
  severity,
  message,
});

const hex = (byte: number): string => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
const quoted = (value: string): string =>
  JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
const REUPLOAD_UTF8 = 'save the file as UTF-8 and upload it again';

export const warn = {
  invalidUtf8: (at: At, byte: number, offset: number, line: number) =>
    make(
      at,
      'bad_encoding',
      'error',
      `byte ${hex(byte)} at byte offset ${offset} (line ${line}) is not valid UTF-8; ${REUPLOAD_UTF8}`,
    ),
  truncatedUtf8: (at: At, offset: number, line: number) =>
    make(
      at,
      'bad_encoding',
      'error',
      `the file ends inside a UTF-8 character that starts at byte offset ${offset} (line ${line}); ${REUPLOAD_UTF8}`,
    ),
  utf16: (at: At, bom: string) =>
    make(
      at,
      'bad_encoding',
      'error',
      `the file starts with a UTF-16 byte order mark (${bom}) at byte offset 0; ${REUPLOAD_UTF8}`,
    ),
  nulByte: (at: At, offset: number, line: number) =>
    make(
      at,
      'bad_encoding',
      'error',
      `NUL byte at byte offset ${offset} (line ${line}): the file is UTF-16 or binary, not UTF-8 text; ${REUPLOAD_UTF8}`,
    ),
  emptyFile: (at: At) =>
    make(at, 'empty_file', 'error', 'the file is empty; expected a header line naming the columns'),
  missingColumns: (at: At, missing: readonly string[]) =>
    make(
      at,
      'missing_columns',
      'error',
      `missing required column${missing.length === 1 ? '' : 's'} ${missing.join(', ')}; the header must name ${missing.length === 1 ? 'it' : 'them'} (Synthea CSV layout); no row was read`,
    ),
  columnCount: (at: At, found: number, expected: number) =>
    make(
      at,
      'csv_column_count',
      'error',
      `the row has ${found} field${found === 1 ? '' : 's'} but the header has ${expected}; quote fields that contain commas`,
    ),
  unclosedQuote: (at: At) =>
    make(
      at,
      'csv_unclosed_quote',
      'error',
      `the quoted field that starts on line ${at.row} is never closed; a quote inside a field must be doubled ("")`,
    ),
  strayQuote: (at: At, found: string, field: number) =>
    make(
      at,
      'csv_bad_quote',
      'error',
      `unexpected ${quoted(found)} after the closing quote of field ${field}; a quote inside a quoted field must be doubled ("")`,
    ),
  recordTooLong: (at: At, limit: number) =>
    make(
      at,
      'record_too_long',
      'error',
      `the record starting on line ${at.row} is longer than ${limit} characters (is a quote left open?); reading stopped`,
    ),
  lineTooLong: (at: At, limit: number) =>
    make(
      at,
      'record_too_long',
      'error',
      `line ${at.row} is longer than ${limit} characters; NDJSON holds one resource or Bundle per line; reading stopped`,
    ),
  jsonSyntax: (at: At, line: number, column: number, detail: string) =>
    make(at, 'json_syntax', 'error', `invalid JSON at line ${line}, column ${column}: ${detail}`),
  notAResource: (at: At, what: string) =>
    make(
      at,
      'fhir_not_a_resource',
      'error',
      `${what} holds no FHIR resource (no "resourceType"); expected a Bundle, Patient, Appointment, Encounter or DocumentReference`,
    ),
  unsupportedResource: (at: At, resourceType: string, count: number) =>
    make(
      at,
      'fhir_unsupported_resource',
      'info',
      `${count} ${quoted(resourceType)} resource${count === 1 ? ' was' : 's were'} skipped (first on row ${at.row}); only Patient, Appointment, Encounter and DocumentReference are imported`,
    ),
  missingField: (at: At, kind: RecordKind, label: string) =>
    make(at, 'missing_field', 'error', `${label} is missing; every ${kind} needs one`),
  valueTooLong: (at: At, label: string, length: number, limit: number) =>
    make(
      at,
      'value_too_long',
      'error',
      `${label} is ${length} characters long; Ward stores at most ${limit}; shorten it in the source`,
    ),
  nulCharacter: (at: At, label: string) =>
    make(
      at,
      'nul_character',
      'error',
      `${label} contains a NUL character (\\u0000), which the database cannot store; remove it from the source`,
    ),
  /** `found`: the SDK's words, "contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 4". */
  invisibleCharacter: (at: At, label: string, found: string) =>
    make(
      at,
      'invisible_character',
      'error',
      `${label} ${found}, which would make it differ from the same text typed in Ward; remove it from the source`,
    ),
  badDate: (at: At, label: string, value: string) =>
    make(at, 'bad_date', 'error', `${label} ${quoted(value)} is not a calendar date; expected YYYY-MM-DD`),
  badTimestamp: (at: At, label: string, value: string) =>
    make(
      at,
      'bad_timestamp',
      'error',
      `${label} ${quoted(value)} is not an ISO 8601 date-time with a time zone; expected e.g. 2024-05-01T09:30:00Z`,
    ),
  unknownSex: (at: At, value: string) =>
    make(
      at,
      'unknown_sex_code',
      'warning',
      `sex code ${quoted(value)} is not known; expected female, male, other or unknown (or F, M, O, U); imported as unknown`,
    ),
  unknownStatus: (at: At, value: string, allowed: readonly string[]) =>
    make(
      at,
      'unknown_status',
      'error',
      `status ${quoted(value)} is not an appointment status; expected one of ${allowed.join(', ')}`,
    ),
  duplicateId: (at: At, kind: RecordKind, id: string) =>
    make(
      at,
      'duplicate_id',
      'error',
      `${kind} id ${quoted(id)} appears earlier in the file; each ${kind} must appear once`,
    ),
  unknownPatient: (at: At, kind: RecordKind, id: string) =>
    make(
      at,
      'unknown_patient',
      'error',
      `${kind} refers to patient ${quoted(id)}, who is neither earlier in this file nor imported before; import the patient first`,
    ),
  endBeforeStart: (at: At, start: string, end: string) =>
    make(at, 'end_before_start', 'error', `end ${end} is not after start ${start}`),
  binaryMissing: (at: At, ref: string) =>
    make(
      at,
      'binary_missing',
      'warning',
      `binary ${quoted(ref)} has not been uploaded yet; upload it before executing the job`,
    ),
  badHash: (at: At, value: string, expected: string) =>
    make(
      at,
      'bad_hash',
      'warning',
      `hash ${quoted(value)} is not ${expected}; it is ignored and the upload's own checksum is used`,
    ),
  invalidDocumentMeta: (at: At, code: 'invalid_title' | 'invalid_content_type', problem: string) =>
    make(
      at,
      code,
      'error',
      `${problem}, which an upload to Ward's documents is refused for too; fix it in the source`,
    ),
  badBase64: (at: At) =>
    make(
      at,
      'bad_base64',
      'error',
      'the inline content (attachment data) is not base64; expected the bytes in base64, as FHIR writes them',
    ),
  contentTooLarge: (at: At, size: number, limit: number) =>
    make(
      at,
      'content_too_large',
      'error',
      `the inline content is ${size} bytes; Ward's documents take at most ${limit} (WARD_DOCUMENT_MAX_BYTES)`,
    ),
  contentMismatch: (at: At, declared: string, actual: string) =>
    make(
      at,
      'binary_mismatch',
      'error',
      `the source gives ${declared}, but its inline content has ${actual}; the content was changed or cut short`,
    ),
  inexactNumber: (at: At, text: string) =>
    make(
      at,
      'json_inexact_number',
      'warning',
      `the number ${text} cannot be held exactly (it would become ${Number(text)}); Ward reads it as that, so if the field is one Ward imports, write it within range in the source`,
    ),
  duplicateKey: (at: At, key: string) =>
    make(
      at,
      'json_duplicate_key',
      'error',
      `key ${quoted(key)} appears twice in one object, so which value is meant cannot be known; keep one of them in the source`,
    ),
  duplicateColumn: (at: At, name: string, first: number, second: number) =>
    make(
      at,
      'duplicate_column',
      'error',
      `column ${quoted(name)} appears twice in the header (columns ${first} and ${second}), so which one holds the value cannot be known; rename or remove one; no row was read`,
    ),
  badSize: (at: At, value: string) =>
    make(at, 'bad_size', 'warning', `size ${quoted(value)} is not a whole number of bytes; it is ignored`),
};
