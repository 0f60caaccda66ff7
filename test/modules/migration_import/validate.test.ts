import test from 'ava';
import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { normaliseInstant } from '../../../modules/migration_import/lib/checks.ts';
import {
  APPOINTMENT_STATUSES,
  checkAppointment,
  checkDocument,
  checkPatient,
  validateImport,
} from '../../../modules/migration_import/lib/index.ts';
import type { ImportItem, SourceItem, ValidateOptions } from '../../../modules/migration_import/lib/index.ts';
import { sdk } from '../../../src/sdk/runtime.ts';
import { collect, warningsOf, rules } from './helpers.ts';

async function* source(...items: SourceItem[]): AsyncGenerator<SourceItem> {
  yield* items;
}
const validate = (items: SourceItem[], options: Omit<ValidateOptions, 'rules'> = {}): Promise<ImportItem[]> =>
  collect(validateImport(source(...items), { rules, ...options }));

const place = { row: 1, field: (name: string) => name };
const patient = (sourceId: string, extra: object = {}): SourceItem => ({
  kind: 'patient',
  row: 1,
  record: { sourceId, familyName: 'Lee', givenName: 'Wei', birthDate: '1990-01-02', sex: 'M', ...extra },
});
const appointment = (sourceId: string, patientSourceId: string): SourceItem => ({
  kind: 'appointment',
  row: 2,
  record: {
    sourceId,
    patientSourceId,
    practitionerName: 'Dr. Ada',
    start: '2024-05-01T09:00:00Z',
    end: '2024-05-01T09:30:00Z',
    status: 'booked',
  },
});
const codes = (items: ImportItem[]) => warningsOf(items).map((warning) => `${warning.row}:${warning.code}`);
const kinds = (items: ImportItem[]) => items.map((item) => item.kind);

test('an error blocks its record; a warning does not', async (t) => {
  const items = await validate([patient('a', { birthDate: 'soon' }), patient('b', { sex: 'X' })]);
  t.deepEqual(kinds(items), ['warning', 'warning', 'patient']);
  t.like(items[2], { record: { sourceId: 'b', sex: 'unknown' } });
});

test('knownPatient is asked only about patients not in the file, and may answer asynchronously', async (t) => {
  const asked: string[] = [];
  const knownPatient = async (id: string) => {
    asked.push(id);
    return id === 'imported-before';
  };
  const items = await validate(
    [
      patient('p1'),
      appointment('a1', 'p1'),
      appointment('a2', 'imported-before'),
      appointment('a3', 'ghost'),
    ],
    { knownPatient },
  );
  t.deepEqual(asked, ['imported-before', 'ghost']);
  t.deepEqual(codes(items), ['2:unknown_patient']);
  t.deepEqual(kinds(items), ['patient', 'appointment', 'appointment', 'warning']);
});

test('a patient blocked by an error still counts as in the file, so its appointments get no second error', async (t) => {
  const items = await validate([patient('p1', { birthDate: '' }), appointment('a1', 'p1')]);
  t.deepEqual(codes(items), ['1:missing_field']);
});

test('acrossRecords: false skips duplicate and reference checks', async (t) => {
  const items = await validate([patient('p1'), patient('p1'), appointment('a1', 'ghost')], {
    acrossRecords: false,
  });
  t.deepEqual(kinds(items), ['patient', 'patient', 'appointment']);
});

test('ids of different kinds may coincide: duplicates are per kind', async (t) => {
  const items = await validate([patient('x'), appointment('x', 'x')]);
  t.deepEqual(kinds(items), ['patient', 'appointment']);
});

test('sex codes: F, M, O, U and the FHIR words in any case; no code at all is unknown, silently', (t) => {
  const sexOf = (sex: string | undefined) => checkPatient({ ...fields, sex }, place, rules).record?.sex;
  const fields = { sourceId: 'p', familyName: 'L', givenName: 'G', birthDate: '2000-01-01' };
  t.deepEqual(['f', 'M', 'o', 'U', 'Female', 'MALE', 'other', 'unknown', undefined, '  '].map(sexOf), [
    'female',
    'male',
    'other',
    'unknown',
    'female',
    'male',
    'other',
    'unknown',
    'unknown',
    'unknown',
  ]);
  t.deepEqual(checkPatient({ ...fields }, place, rules).warnings, []);
});

test('text comes out in NFC; source ids stay as the source wrote them', (t) => {
  const { record, warnings } = checkPatient(
    {
      sourceId: 'Zoe\u0308',
      mrn: 'E\u0301-1',
      familyName: 'A\u030Aberg',
      givenName: 'Zoe\u0308',
      birthDate: '2000-01-01',
      address: { lines: ['rue de l’E\u0301glise'], city: 'Ne\u0301ron' },
    },
    place,
    rules,
    sdk.text,
  );
  t.deepEqual(warnings, []);
  t.like(record, {
    sourceId: 'Zoe\u0308',
    mrn: '\u00C9-1',
    familyName: '\u00C5berg',
    givenName: 'Zo\u00EB',
    address: { lines: ['rue de l’\u00C9glise'], city: 'N\u00E9ron' },
  });
  const visit = checkAppointment(
    {
      sourceId: 'a',
      patientSourceId: 'p',
      practitionerName: 'Dr Ne\u0301ron',
      start: '2024-05-01T09:00:00Z',
      end: '2024-05-01T10:00:00Z',
      status: 'booked',
      reason: 'Re\u0301vision',
    },
    place,
    rules,
  ).record;
  t.like(visit, { practitionerName: 'Dr N\u00E9ron', reason: 'R\u00E9vision' });
});

test('a patient id standing in for the MRN is held to the MRN rule; without the SDK rules nothing is checked', (t) => {
  const fields = { sourceId: 'p\u200B1', familyName: 'Lee', givenName: 'Ann', birthDate: '2000-01-01' };
  t.deepEqual(
    checkPatient(fields, place, rules, sdk.text).warnings.map((warning) => warning.message),
    [
      'patient id (used as the MRN) contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 2, which would make it differ from the same text typed in Ward; remove it from the source',
    ],
  );
  t.deepEqual(checkPatient({ ...fields, mrn: 'M-1' }, place, rules, sdk.text).warnings, []);
  t.deepEqual(checkPatient(fields, place, rules).warnings, []);
  t.deepEqual(
    checkPatient({ ...fields, sourceId: 'p1', givenName: 'A\u0000n' }, place, rules, sdk.text).warnings.map(
      (warning) => warning.code,
    ),
    ['nul_character'],
    'a NUL is reported once, as the NUL it is',
  );
});

test('instants need a zone and a real date; they come out as UTC toISOString', (t) => {
  const accepted: Array<[string, string]> = [
    ['2024-05-01T09:30Z', '2024-05-01T09:30:00.000Z'],
    ['2024-05-01T09:30:00+02:00', '2024-05-01T07:30:00.000Z'],
    ['2024-05-01T23:30:00.123456-05:30', '2024-05-02T05:00:00.123Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ];
  for (const [text, instant] of accepted) t.is(normaliseInstant(text), instant, text);
  const refused = [
    '2024-05-01T09:30:00',
    '2024-05-01 09:30:00Z',
    '2023-02-29T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T09:60:00Z',
    '2024-05-01T09:30:00+15:00',
    '2024-05-01',
    'yesterday',
  ];
  for (const text of refused) t.is(normaliseInstant(text), null, text);
});

test('values are trimmed, and blank means missing', (t) => {
  const { record, warnings } = checkAppointment(
    {
      sourceId: ' a1 ',
      patientSourceId: 'p1',
      practitionerName: ' Dr. Ada ',
      start: ' 2024-05-01T09:00:00Z',
      end: '2024-05-01T09:30:00Z ',
      status: ' Booked ',
      reason: '   ',
    },
    place,
    rules,
  );
  t.deepEqual(warnings, []);
  t.deepEqual(record, {
    sourceId: 'a1',
    patientSourceId: 'p1',
    practitionerName: 'Dr. Ada',
    start: '2024-05-01T09:00:00.000Z',
    end: '2024-05-01T09:30:00.000Z',
    status: 'booked',
  });
});

test('without hasBinary, binaries are not checked; with it, a missing one is a warning only', async (t) => {
  const document: SourceItem = {
    kind: 'document',
    row: 3,
    record: {
      sourceId: 'd',
      patientSourceId: 'p',
      title: 'T',
      contentType: 'text/plain',
      binaryRef: 'a.txt',
    },
  };
  t.deepEqual(kinds(await validate([patient('p'), document])), ['patient', 'document']);
  const checked = await validate([patient('p'), document], { hasBinary: async () => false });
  t.deepEqual(kinds(checked), ['patient', 'warning', 'document']);
});

const text = fc.string({ minLength: 1, maxLength: 20 }).filter((value) => value.trim() !== '');
const day = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));
const anyCase = (value: string) => fc.boolean().map((upper) => (upper ? value.toUpperCase() : value));

/** An instant written in a random zone, as some exporter might. */
const zoned = (time: number) =>
  fc.integer({ min: -48, max: 56 }).map((quarters) => {
    if (quarters === 0) return new Date(time).toISOString().replace('.000Z', 'Z');
    const minutes = quarters * 15;
    const local = new Date(time + minutes * 60_000).toISOString().slice(0, 23);
    const sign = minutes < 0 ? '-' : '+';
    const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
    return `${local}${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
  });

const validPatient = fc.record({
  sourceId: text,
  mrn: fc.option(text, { nil: undefined }),
  familyName: text,
  givenName: text,
  birthDate: day,
  sex: fc.constantFrom('female', 'male', 'other', 'unknown', 'f', 'm', 'o', 'u').chain(anyCase),
  phone: fc.option(text, { nil: undefined }),
  email: fc.option(text, { nil: undefined }),
});

const validAppointment = fc
  .record({
    start: fc.integer({ min: Date.UTC(1950, 0, 1), max: Date.UTC(2090, 0, 1) }),
    minutes: fc.integer({ min: 1, max: 600 }),
  })
  .chain(({ start, minutes }) =>
    fc.record({
      sourceId: text,
      patientSourceId: text,
      practitionerName: text,
      start: zoned(start),
      end: zoned(start + minutes * 60_000),
      status: fc.constantFrom(...APPOINTMENT_STATUSES).chain(anyCase),
      reason: fc.option(text, { nil: undefined }),
    }),
  );

const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,15}$/);
const validDocument = fc.record({
  sourceId: text,
  patientSourceId: text,
  title: text,
  contentType: fc.tuple(token, token).map(([type, subtype]) => `${type}/${subtype}`),
  sha1: fc.option(
    fc.uint8Array({ minLength: 20, maxLength: 20 }).map((hash) => Buffer.from(hash).toString('base64')),
    { nil: undefined },
  ),
  size: fc.option(fc.nat().map(String), { nil: undefined }),
  binaryRef: text,
});

/** A canonical record written back as raw text, to check that validating twice changes nothing. */
const asRaw = (record: object): Record<string, string> =>
  Object.fromEntries(
    Object.entries(record).map(([field, value]) => [
      field,
      field === 'sha1' ? Buffer.from(String(value), 'hex').toString('base64') : String(value),
    ]),
  );

test('property: a valid patient never gets an error, and its canonical form is a fixed point', (t) => {
  fc.assert(
    fc.property(validPatient, (raw) => {
      const { record, warnings } = checkPatient(raw, place, rules);
      t.deepEqual(warnings, []);
      t.not(record, null);
      t.deepEqual(checkPatient(asRaw(record!), place, rules).record, record);
    }),
  );
});

test('property: a valid appointment never gets an error, and its canonical form is a fixed point', (t) => {
  fc.assert(
    fc.property(validAppointment, (raw) => {
      const { record, warnings } = checkAppointment(raw, place, rules);
      t.deepEqual(warnings, []);
      t.not(record, null);
      t.deepEqual(checkAppointment(asRaw(record!), place, rules).record, record);
    }),
  );
});

test('property: a valid document never gets an error, and its canonical form is a fixed point', (t) => {
  fc.assert(
    fc.property(validDocument, (raw) => {
      const { record, warnings } = checkDocument(raw, place, rules);
      t.deepEqual(warnings, []);
      t.not(record, null);
      t.deepEqual(checkDocument(asRaw(record!), place, rules).record, record);
    }),
  );
});

test('property: valid records with unique ids and known patients pass validation whole', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(validPatient, { maxLength: 10 }),
      fc.array(validAppointment, { maxLength: 10 }),
      async (patients, appointments) => {
        const items: SourceItem[] = [
          ...patients.map((record, index): SourceItem => ({
            kind: 'patient',
            row: index + 1,
            record: { ...record, sourceId: `p${index}` },
          })),
          ...appointments.map((record, index): SourceItem => ({
            kind: 'appointment',
            row: 100 + index,
            record: { ...record, sourceId: `a${index}` },
          })),
        ];
        const validated = await validate(items, { knownPatient: () => true });
        t.deepEqual(warningsOf(validated), []);
        t.is(validated.length, items.length);
      },
    ),
  );
});
