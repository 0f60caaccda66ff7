/**
 * Every warning kind, with its exact text, from the fixture that exists to cause it (or a line of
 * input where no fixture is needed). The last test fails when a code is added without a case here.
 */
import test from 'ava';
import { importItems, WARNING_CODES } from '../../../modules/migration_import/lib/index.ts';
import type {
  ByteSource,
  ImportFormat,
  ImportWarning,
  ValidateOptions,
} from '../../../modules/migration_import/lib/index.ts';
import { sdk } from '../../../src/sdk/runtime.ts';
import { bytes, collect, fixture, recordsOf, warningsOf, rules } from './helpers.ts';

const MARIA = 'fb165133-d04c-455d-9e6c-f09c5e5335e3';
const UTF8 = 'save the file as UTF-8 and upload it again';
const seen = new Set<string>();

const patientIds = async (): Promise<Set<string>> =>
  new Set(
    recordsOf(
      await collect(importItems('synthea-patients-csv', fixture('synthea/patients.csv'), { rules })),
    ).map((item) => item.record.sourceId),
  );

function warns(
  title: string,
  format: ImportFormat,
  source: () => ByteSource,
  expected: Array<[row: number, field: string, code: string, severity: string, message: string]>,
  options: () => Promise<Omit<ValidateOptions, 'rules'>> | Omit<ValidateOptions, 'rules'> = () => ({}),
): void {
  for (const [, , code] of expected) seen.add(code);
  test(title, async (t) => {
    const warnings = warningsOf(
      await collect(importItems(format, source(), { rules, ...(await options()) })),
    );
    t.deepEqual(
      warnings,
      expected.map(
        ([row, field, code, severity, message]) => ({ row, field, code, severity, message }) as ImportWarning,
      ),
    );
  });
}

const known = async (): Promise<Omit<ValidateOptions, 'rules'>> => {
  const ids = await patientIds();
  return { knownPatient: (id) => ids.has(id) };
};

// prettier-ignore
warns('malformed CSV: wrong column count, text after a quote, an unclosed quote', 'synthea-patients-csv', () => fixture('bad/malformed.csv'), [
  [3, '', 'csv_column_count', 'error', 'the row has 3 fields but the header has 25; quote fields that contain commas'],
  [4, 'LAST', 'csv_bad_quote', 'error', 'unexpected "x" after the closing quote of field 9; a quote inside a quoted field must be doubled ("")'],
  [6, 'FIRST', 'csv_unclosed_quote', 'error', 'the quoted field that starts on line 6 is never closed; a quote inside a field must be doubled ("")'],
]);

// prettier-ignore
warns('a broken JSON Bundle: one error with line and column, on the entry it broke in', 'fhir-json', () => fixture('bad/broken-bundle.json.txt'), [
  [3, '', 'json_syntax', 'error', `invalid JSON at line 140, column 9: expected ',' or '}' after a property value, found '"'`],
]);

// prettier-ignore
warns('a broken NDJSON line: one error for that line', 'fhir-ndjson', () => fixture('bad/broken.ndjson'), [
  [2, '', 'json_syntax', 'error', `invalid JSON at line 2, column 35: unexpected '}'`],
]);

// prettier-ignore
warns('Latin-1 bytes: the offset of the first one', 'synthea-patients-csv', () => fixture('bad/latin1-patients.csv'), [
  [3, '', 'bad_encoding', 'error', `byte 0xE9 at byte offset 521 (line 3) is not valid UTF-8; ${UTF8}`],
]);

// prettier-ignore
warns('a UTF-16 file: its byte order mark', 'synthea-patients-csv', () => fixture('bad/utf16-patients.csv'), [
  [1, '', 'bad_encoding', 'error', `the file starts with a UTF-16 byte order mark (FF FE) at byte offset 0; ${UTF8}`],
]);

// prettier-ignore
warns('missing columns: one error naming them all', 'synthea-patients-csv', () => fixture('bad/missing-columns.csv'), [
  [1, 'BIRTHDATE, GENDER', 'missing_columns', 'error', 'missing required columns BIRTHDATE, GENDER; the header must name them (Synthea CSV layout); no row was read'],
]);

// prettier-ignore
warns('an empty file', 'synthea-encounters-csv', () => bytes(''), [
  [1, '', 'empty_file', 'error', 'the file is empty; expected a header line naming the columns'],
]);

// prettier-ignore
warns('a record that never ends', 'synthea-patients-csv', () => bytes('Id,BIRTHDATE,FIRST,LAST,GENDER\n"', 'x'.repeat(1 << 20)), [
  [2, '', 'record_too_long', 'error', 'the record starting on line 2 is longer than 1048576 characters (is a quote left open?); reading stopped'],
]);

// prettier-ignore
warns('a duplicate source id', 'synthea-patients-csv', () => fixture('bad/duplicate-ids.csv'), [
  [4, 'Id', 'duplicate_id', 'error', `patient id "${MARIA}" appears earlier in the file; each patient must appear once`],
]);

// prettier-ignore
warns('an appointment for a patient in neither the file nor earlier imports', 'synthea-encounters-csv', () => fixture('bad/unknown-patients-encounters.csv'), [
  [3, 'PATIENT', 'unknown_patient', 'error', 'appointment refers to patient "patient-not-anywhere", who is neither earlier in this file nor imported before; import the patient first'],
], known);

// prettier-ignore
warns('bad and missing birth dates', 'synthea-patients-csv', () => fixture('bad/bad-dates.csv'), [
  [2, 'BIRTHDATE', 'bad_date', 'error', 'birth date "1985-02-30" is not a calendar date; expected YYYY-MM-DD'],
  [3, 'BIRTHDATE', 'bad_date', 'error', 'birth date "02/14/1985" is not a calendar date; expected YYYY-MM-DD'],
  [4, 'BIRTHDATE', 'missing_field', 'error', 'birth date is missing; every patient needs one'],
]);

// prettier-ignore
warns('a start without a time zone, an end before the start', 'synthea-encounters-csv', () => fixture('bad/bad-times-encounters.csv'), [
  [2, 'START', 'bad_timestamp', 'error', 'start "2020-03-01T09:00:00" is not an ISO 8601 date-time with a time zone; expected e.g. 2024-05-01T09:30:00Z'],
  [3, 'STOP', 'end_before_start', 'error', 'end 2020-03-01T09:30:00.000Z is not after start 2020-03-01T10:00:00.000Z'],
], known);

// prettier-ignore
warns('an unknown sex code is a warning (imported as unknown); "u" is known', 'synthea-patients-csv', () => fixture('bad/unknown-sex.csv'), [
  [2, 'GENDER', 'unknown_sex_code', 'warning', 'sex code "X" is not known; expected female, male, other or unknown (or F, M, O, U); imported as unknown'],
]);

// prettier-ignore
warns('values the database cannot store: too long (the patient id too when it stands in for the MRN), year 0', 'synthea-patients-csv', () => bytes(
  'Id,BIRTHDATE,FIRST,LAST,GENDER\n',
  `p1,1980-01-01,Ann,${'S'.repeat(300)},F\n`,
  `${'i'.repeat(100)},1980-01-01,Bo,Lee,M\n`,
  'p4,0000-01-01,Di,Ho,F\n',
), [
  [2, 'LAST', 'value_too_long', 'error', 'family name is 300 characters long; Ward stores at most 255; shorten it in the source'],
  [3, 'Id', 'value_too_long', 'error', 'MRN is 100 characters long; Ward stores at most 64; shorten it in the source'],
  [4, 'BIRTHDATE', 'bad_date', 'error', 'birth date "0000-01-01" is not a calendar date; expected YYYY-MM-DD'],
]);

// prettier-ignore
warns('a NUL character, which a CSV cannot hold (bad_encoding) but a JSON string can', 'fhir-ndjson', () => bytes(
  JSON.stringify({ resourceType: 'Patient', id: 'p1', name: [{ family: 'Ng', given: ['Cy\u0000x'] }], birthDate: '1980-01-01' }),
  '\n',
), [
  [1, '/name/0/given', 'nul_character', 'error', 'given name contains a NUL character (\\u0000), which the database cannot store; remove it from the source'],
]);

// prettier-ignore
warns('characters nobody can see: a zero-width space in the patient id standing in for the MRN, a bidi override in a name', 'synthea-patients-csv', () => bytes(
  'Id,BIRTHDATE,FIRST,LAST,GENDER\n',
  'p\u200B1,1980-01-01,Ann,Lee,F\n',
  'p2,1980-01-01,Bo,\u202ELee,M\n',
  'p3,1980-01-01,\u0645\u062D\u0645\u062F\u200C\u0631\u0636\u0627,Lee,M\n',
), [
  [2, 'Id', 'invisible_character', 'error', 'MRN contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 2, which would make it differ from the same text typed in Ward; remove it from the source'],
  [3, 'LAST', 'invisible_character', 'error', 'family name contains U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 1, which would make it differ from the same text typed in Ward; remove it from the source'],
], () => ({ text: sdk.text }));

// prettier-ignore
warns('blank required fields', 'synthea-patients-csv', () => fixture('bad/missing-fields.csv'), [
  [2, 'LAST', 'missing_field', 'error', 'family name is missing; every patient needs one'],
  [2, 'FIRST', 'missing_field', 'error', 'given name is missing; every patient needs one'],
]);

// prettier-ignore
warns('FHIR: no resourceType, unknown status, stranger patient, bad attachment, binary not uploaded, skipped type', 'fhir-ndjson', () => fixture('bad/fhir-problems.ndjson'), [
  [1, '', 'fhir_not_a_resource', 'error', 'line 1 holds no FHIR resource (no "resourceType"); expected a Bundle, Patient, Appointment, Encounter or DocumentReference'],
  [3, '/status', 'unknown_status', 'error', 'status "done" is not an appointment status; expected one of proposed, pending, booked, arrived, fulfilled, cancelled, noshow, entered-in-error, checked-in, waitlist'],
  [4, '/participant', 'missing_field', 'error', 'practitioner is missing; every appointment needs one'],
  [4, '/participant', 'unknown_patient', 'error', 'appointment refers to patient "stranger", who is neither earlier in this file nor imported before; import the patient first'],
  [5, '/content/0/attachment/hash', 'bad_hash', 'warning', `hash "not-base64" is not a base64 SHA-1 (FHIR attachment.hash); it is ignored and the upload's own checksum is used`],
  [5, '/content/0/attachment/size', 'bad_size', 'warning', 'size "-4" is not a whole number of bytes; it is ignored'],
  [5, '/content/0/attachment/url', 'binary_missing', 'warning', 'binary "never-uploaded.pdf" has not been uploaded yet; upload it before executing the job'],
  [6, '', 'fhir_unsupported_resource', 'info', '1 "Observation" resource was skipped (first on row 6); only Patient, Appointment, Encounter and DocumentReference are imported'],
], () => ({ hasBinary: (ref) => ref.startsWith('note-') }));

const inlineNote = (attachment: object) =>
  JSON.stringify({
    resourceType: 'DocumentReference',
    id: 'd1',
    subject: { reference: 'Patient/p1' },
    content: [{ attachment: { title: 'Note', ...attachment } }],
  });

// prettier-ignore
warns('documents: title and content type by the upload rules; inline content not base64, too large, or unlike its hash', 'fhir-ndjson', () => bytes(
  JSON.stringify({ resourceType: 'Patient', id: 'p1', name: [{ family: 'Ng', given: ['Cy'] }], birthDate: '1980-01-01' }), '\n',
  inlineNote({ url: 'a.txt', title: 'Bell\u0007' }), '\n',
  inlineNote({ url: 'b.txt', contentType: 'text/html\r\nSet-Cookie: a=b' }), '\n',
  inlineNote({ data: '@@@@' }).replace('"d1"', '"d3"'), '\n',
  inlineNote({ data: Buffer.from('x'.repeat(40)).toString('base64') }).replace('"d1"', '"d4"'), '\n',
  inlineNote({ data: Buffer.from('hello').toString('base64'), size: 6 }).replace('"d1"', '"d5"'), '\n',
), [
  [2, '/content/0/attachment/title', 'invalid_title', 'error', `the title contains U+0007 (a control character) at character 5, which an upload to Ward's documents is refused for too; fix it in the source`],
  [3, '/content/0/attachment/contentType', 'invalid_content_type', 'error', `"text/html\\r\\nSet-Cookie: a=b" is not a media type, which an upload to Ward's documents is refused for too; fix it in the source`],
  [3, '/id', 'duplicate_id', 'error', 'document id "d1" appears earlier in the file; each document must appear once'],
  [4, '/content/0/attachment/data', 'bad_base64', 'error', 'the inline content (attachment data) is not base64; expected the bytes in base64, as FHIR writes them'],
  [5, '/content/0/attachment/data', 'content_too_large', 'error', "the inline content is 40 bytes; Ward's documents take at most 32 (WARD_DOCUMENT_MAX_BYTES)"],
  [6, '/content/0/attachment/size', 'binary_mismatch', 'error', 'the source gives size 6, but its inline content has 5 bytes; the content was changed or cut short'],
], () => ({ text: sdk.text, maxDocumentBytes: 32 }));

// prettier-ignore
warns('JSON whose text says more than its values: a number no double holds, a key given twice', 'fhir-ndjson', () => bytes(
  '{"resourceType":"Patient","id":"p1","name":[{"family":"Ng","given":["Cy"]}],"birthDate":"1980-01-01","multipleBirthInteger":1e309}\n',
  '{"resourceType":"Patient","id":"p2","name":[{"family":"Ng","given":["Di"]}],"birthDate":"1980-01-01","birthDate":"1981-02-02","x":1e-400}\n',
), [
  [1, '/multipleBirthInteger', 'json_inexact_number', 'warning', 'the number 1e309 cannot be held exactly (it would become Infinity); Ward reads it as that, so if the field is one Ward imports, write it within range in the source'],
  [2, '/birthDate', 'json_duplicate_key', 'error', 'key "birthDate" appears twice in one object, so which value is meant cannot be known; keep one of them in the source'],
  [2, '/x', 'json_inexact_number', 'warning', 'the number 1e-400 cannot be held exactly (it would become 0); Ward reads it as that, so if the field is one Ward imports, write it within range in the source'],
]);

// prettier-ignore
warns('a CSV header naming a column twice, whatever the case', 'synthea-patients-csv', () => bytes(
  'Id,BIRTHDATE,FIRST,LAST,GENDER,last\n',
  'p1,1980-01-01,Ann,Lee,F,Smith\n',
), [
  [1, 'last', 'duplicate_column', 'error', 'column "last" appears twice in the header (columns 4 and 6), so which one holds the value cannot be known; rename or remove one; no row was read'],
]);

test('every warning code has a case above', (t) => {
  t.deepEqual(
    WARNING_CODES.filter((code) => !seen.has(code)),
    [],
  );
});
