import test from 'ava';
import { importItems, readImport } from '../../../modules/migration_import/lib/index.ts';
import { bytes, collect, fixture, recordsOf, warningsOf, rules } from './helpers.ts';

const MARIA = 'fb165133-d04c-455d-9e6c-f09c5e5335e3';

test('patients.csv: every row is a patient; Id is both source id and MRN, as in Synthea FHIR', async (t) => {
  const items = await collect(
    importItems('synthea-patients-csv', fixture('synthea/patients.csv'), { rules }),
  );
  t.deepEqual(warningsOf(items), []);
  t.is(items.length, 50);
  t.deepEqual(items.slice(0, 2), [
    {
      kind: 'patient',
      row: 2,
      record: {
        sourceId: MARIA,
        mrn: MARIA,
        familyName: 'Smith',
        givenName: 'Maria',
        birthDate: '1983-05-16',
        sex: 'female',
        address: { lines: ['366 Beacon St'], city: 'Worcester', state: 'Massachusetts', postalCode: '01237' },
      },
    },
    {
      kind: 'patient',
      row: 3,
      record: {
        sourceId: 'c231e770-1dcd-4f96-85ea-5e02b598edb4',
        mrn: 'c231e770-1dcd-4f96-85ea-5e02b598edb4',
        familyName: 'Okafor',
        givenName: 'Amara',
        birthDate: '1948-02-28',
        sex: 'female',
        address: {
          lines: ['432 Maple Ave, Unit 10'],
          city: 'Worcester',
          state: 'Massachusetts',
          postalCode: '02000',
        },
      },
    },
  ]);
});

test('the newer layout (FIPS before ZIP, INCOME) reads the same, since columns go by name', async (t) => {
  const classic = await collect(
    importItems('synthea-patients-csv', fixture('synthea/patients.csv'), { rules }),
  );
  const newer = await collect(
    importItems('synthea-patients-csv', fixture('synthea/patients-newer-layout.csv'), { rules }),
  );
  t.deepEqual(newer, classic);
});

test('header names match whatever their case and order; MIDDLE joins the given name', async (t) => {
  const csv = 'gender,last,Middle,first,birthdate,ID\nM,Lee,Jun,Wei,1990-01-02,p1\n';
  t.deepEqual(await collect(importItems('synthea-patients-csv', bytes(csv), { rules })), [
    {
      kind: 'patient',
      row: 2,
      record: {
        sourceId: 'p1',
        mrn: 'p1',
        familyName: 'Lee',
        givenName: 'Wei Jun',
        birthDate: '1990-01-02',
        sex: 'male',
      },
    },
  ]);
});

test('encounters.csv: fulfilled appointments, practitioner by PROVIDER id, reason or else description', async (t) => {
  const items = await collect(readImport('synthea-encounters-csv', fixture('synthea/encounters.csv')));
  t.is(items.length, 101);
  t.deepEqual(items.slice(0, 2), [
    {
      kind: 'appointment',
      row: 2,
      record: {
        sourceId: 'fc38d702-0fad-4765-8a80-7f257618d328',
        patientSourceId: MARIA,
        practitionerName: '46c200d6-063f-4112-990e-156f58fcf79b',
        start: '2017-08-24T16:47:01Z',
        end: '2017-08-24T17:19:01Z',
        status: 'fulfilled',
        reason: 'Hypertension',
      },
    },
    {
      kind: 'appointment',
      row: 3,
      record: {
        sourceId: 'b85a2353-bb61-416b-a1f0-8cbdab5040cb',
        patientSourceId: MARIA,
        practitionerName: '2e3cfea9-d01c-415b-81df-60e9e13345d7',
        start: '2017-02-26T09:42:13Z',
        end: '2017-02-26T10:38:13Z',
        status: 'fulfilled',
        reason: 'Encounter for check up (procedure)',
      },
    },
  ]);
});

test('encounters validate against patients imported before, and instants come out in UTC ISO form', async (t) => {
  const patients = new Set(
    recordsOf(
      await collect(importItems('synthea-patients-csv', fixture('synthea/patients.csv'), { rules })),
    ).map((item) => item.record.sourceId),
  );
  const items = await collect(
    importItems('synthea-encounters-csv', fixture('synthea/encounters.csv'), {
      rules,
      knownPatient: async (id) => patients.has(id),
    }),
  );
  t.deepEqual(warningsOf(items), []);
  t.like(items[0], { record: { start: '2017-08-24T16:47:01.000Z', end: '2017-08-24T17:19:01.000Z' } });
});

test('an empty file and a header-only file yield nothing but what is wrong', async (t) => {
  t.deepEqual(warningsOf(await collect(readImport('synthea-patients-csv', bytes('')))), [
    {
      row: 1,
      field: '',
      code: 'empty_file',
      severity: 'error',
      message: 'the file is empty; expected a header line naming the columns',
    },
  ]);
  t.deepEqual(
    await collect(readImport('synthea-patients-csv', bytes('Id,BIRTHDATE,FIRST,LAST,GENDER\n'))),
    [],
  );
});

test('a broken header is reported and nothing else is read', async (t) => {
  const items = await collect(readImport('synthea-patients-csv', bytes('"Id"x,BIRTHDATE\np1,1990-01-01\n')));
  t.deepEqual(
    items.map((item) => item.kind === 'warning' && item.warning.code),
    ['csv_bad_quote'],
  );
});

test('a record over maxRecordChars stops reading after the rows before it', async (t) => {
  const csv = 'Id,BIRTHDATE,FIRST,LAST,GENDER\np1,1990-01-01,A,B,F\np2,"' + 'x'.repeat(200);
  const items = await collect(readImport('synthea-patients-csv', bytes(csv), { maxRecordChars: 100 }));
  t.deepEqual(
    items.map((item) => (item.kind === 'warning' ? item.warning : item.row)),
    [
      2,
      {
        row: 3,
        field: '',
        code: 'record_too_long',
        severity: 'error',
        message:
          'the record starting on line 3 is longer than 100 characters (is a quote left open?); reading stopped',
      },
    ],
  );
});
