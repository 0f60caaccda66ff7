import test from 'ava';
import { importItems, readImport } from '../../../modules/migration_import/lib/index.ts';
import type { SourceItem } from '../../../modules/migration_import/lib/index.ts';
import { bytes, collect, fixture, recordsOf, warningsOf, rules } from './helpers.ts';
import { OBJECT_MEMBER_NAMES } from '../../helpers/object-members.ts';

const ndjson = (...resources: object[]) =>
  bytes(resources.map((resource) => JSON.stringify(resource)).join('\n'));
const readNdjson = async (...resources: object[]): Promise<SourceItem[]> =>
  collect(readImport('fhir-ndjson', ndjson(...resources)));

test('Patient: the MR identifier is the MRN; first name, telecom and address are mapped', async (t) => {
  const patient = {
    resourceType: 'Patient',
    id: 'p1',
    identifier: [
      { system: 'urn:oid:2.16.840.1.113883.4.1', value: '999-00-1234' },
      { type: { coding: [{ code: 'MR' }] }, value: 'MRN-7' },
    ],
    name: [{ family: 'Lee', given: ['Wei', 'Jun'] }, { family: 'Alias' }],
    gender: 'male',
    birthDate: '1990-01-02',
    telecom: [
      { system: 'email', value: 'wei@example.org' },
      { system: 'phone', value: '555-0100' },
    ],
    address: [
      { line: ['1 Main St', 'Apt 2'], city: 'Boston', state: 'MA', postalCode: '02110', country: 'US' },
    ],
  };
  t.deepEqual(await readNdjson(patient), [
    {
      kind: 'patient',
      row: 1,
      record: {
        sourceId: 'p1',
        mrn: 'MRN-7',
        familyName: 'Lee',
        givenName: 'Wei Jun',
        birthDate: '1990-01-02',
        sex: 'male',
        phone: '555-0100',
        email: 'wei@example.org',
        address: {
          lines: ['1 Main St', 'Apt 2'],
          city: 'Boston',
          state: 'MA',
          postalCode: '02110',
          country: 'US',
        },
      },
    },
  ]);
});

test('Patient: an identifier system naming an MRN also marks it; no MR identifier means no MRN', async (t) => {
  const bySystem = {
    resourceType: 'Patient',
    id: 'p',
    identifier: [{ system: 'https://clinic.example/mrn', value: 'A1' }],
  };
  const none = {
    resourceType: 'Patient',
    id: 'q',
    identifier: [{ system: 'https://clinic.example/ssn', value: 'S' }],
  };
  const items = await readNdjson(bySystem, none);
  t.like(items[0], { record: { mrn: 'A1' } });
  t.is(items[1]?.kind === 'patient' ? items[1].record.mrn : 'not a patient', undefined);
});

test('Appointment: patient from an absolute reference, practitioner display, reason text first', async (t) => {
  const appointment = {
    resourceType: 'Appointment',
    id: 'a1',
    status: 'booked',
    start: '2024-05-01T09:30:00+02:00',
    end: '2024-05-01T10:00:00+02:00',
    description: 'Check-up',
    reasonCode: [{ text: 'Cough', coding: [{ display: 'Cough (finding)' }] }],
    participant: [
      { actor: { reference: 'Practitioner/dr1', display: 'Dr. Ada Okafor' } },
      { actor: { reference: 'https://fhir.example/r4/Patient/p1/_history/3' } },
    ],
  };
  t.deepEqual(await readNdjson(appointment), [
    {
      kind: 'appointment',
      row: 1,
      record: {
        sourceId: 'a1',
        patientSourceId: 'p1',
        practitionerName: 'Dr. Ada Okafor',
        start: '2024-05-01T09:30:00+02:00',
        end: '2024-05-01T10:00:00+02:00',
        status: 'booked',
        reason: 'Cough',
      },
    },
  ]);
});

test('Appointment: without display the practitioner is its id; reason falls back to coding, then description', async (t) => {
  const base = {
    resourceType: 'Appointment',
    id: 'a',
    participant: [{ actor: { reference: 'Practitioner/dr9' } }],
  };
  const items = await readNdjson(
    { ...base, reasonCode: [{ coding: [{ display: 'Cough (finding)' }] }] },
    { ...base, description: 'Check-up' },
    { ...base, participant: [{ actor: { reference: 'urn:uuid:p7', type: 'Patient' } }] },
  );
  t.like(items[0], { record: { practitionerName: 'dr9', reason: 'Cough (finding)' } });
  t.like(items[1], { record: { reason: 'Check-up' } });
  t.like(items[2], { record: { patientSourceId: 'p7' } });
});

test('DocumentReference: urn:uuid subject, attachment fields, title fallbacks, id from fullUrl', async (t) => {
  const document = {
    resourceType: 'DocumentReference',
    subject: { reference: 'urn:uuid:p1' },
    type: { coding: [{ display: 'Discharge summary' }] },
    content: [
      {
        attachment: {
          contentType: 'application/pdf',
          url: 'scans/0001.pdf',
          size: 1024,
          hash: '2jmj7l5rSw0yVb/vlWAYkK/YBwk=',
        },
      },
    ],
  };
  const bundle = {
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [{ fullUrl: 'urn:uuid:d1', resource: document }],
  };
  t.deepEqual(await collect(readImport('fhir-json', bytes(JSON.stringify(bundle)))), [
    {
      kind: 'document',
      row: 1,
      record: {
        sourceId: 'd1',
        patientSourceId: 'p1',
        title: 'Discharge summary',
        contentType: 'application/pdf',
        sha1: '2jmj7l5rSw0yVb/vlWAYkK/YBwk=',
        size: '1024',
        binaryRef: 'scans/0001.pdf',
      },
    },
  ]);
  const [validated] = await collect(
    importItems('fhir-json', bytes(JSON.stringify(bundle)), { rules, knownPatient: () => true }),
  );
  t.like(validated, { record: { sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', size: 1024 } });
});

test('the JSON Bundle and the NDJSON of the same resources give identical items, rows included', async (t) => {
  const bundle = await collect(importItems('fhir-json', fixture('fhir/bundle.json'), { rules }));
  const lines = await collect(importItems('fhir-ndjson', fixture('fhir/resources.ndjson'), { rules }));
  t.deepEqual(lines, bundle);
  t.is(recordsOf(bundle).length, 168);
  t.deepEqual(warningsOf(bundle), [
    {
      row: 1,
      field: '',
      code: 'fhir_unsupported_resource',
      severity: 'info',
      message:
        '5 "Practitioner" resources were skipped (first on row 1); only Patient, Appointment, Encounter and DocumentReference are imported',
    },
  ]);
});

test('a JSON file holding one resource, not a Bundle, is that resource on row 1', async (t) => {
  const patient = { resourceType: 'Patient', id: 'solo', name: [{ family: 'One', given: ['Only'] }] };
  t.like(await collect(readImport('fhir-json', bytes(JSON.stringify(patient)))), [
    { kind: 'patient', row: 1, record: { sourceId: 'solo' } },
  ]);
});

test('a List is not a Bundle: its entry array is not read as resources', async (t) => {
  const list = { resourceType: 'List', entry: [{ item: { reference: 'Patient/1' } }] };
  t.deepEqual(warningsOf(await collect(readImport('fhir-json', bytes(JSON.stringify(list))))), [
    {
      row: 1,
      field: '',
      code: 'fhir_unsupported_resource',
      severity: 'info',
      message:
        '1 "List" resource was skipped (first on row 1); only Patient, Appointment, Encounter and DocumentReference are imported',
    },
  ]);
});

test('an NDJSON line holding a Bundle yields its entries, fields prefixed with the entry path', async (t) => {
  const bundle = {
    resourceType: 'Bundle',
    entry: [
      { resource: { resourceType: 'Observation' } },
      { resource: { resourceType: 'Patient', id: 'p', birthDate: 'soon' } },
    ],
  };
  const items = await collect(importItems('fhir-ndjson', bytes('\n', JSON.stringify(bundle)), { rules }));
  t.deepEqual(
    warningsOf(items).map((warning) => [warning.row, warning.field, warning.code]),
    [
      [2, '/entry/1/resource/name/0/family', 'missing_field'],
      [2, '/entry/1/resource/name/0/given', 'missing_field'],
      [2, '/entry/1/resource/birthDate', 'bad_date'],
      [2, '', 'fhir_unsupported_resource'],
    ],
  );
});

test('a JSON document that is no resource at all says so', async (t) => {
  t.deepEqual(warningsOf(await collect(readImport('fhir-json', bytes('[1, 2]')))), [
    {
      row: 1,
      field: '',
      code: 'fhir_not_a_resource',
      severity: 'error',
      message:
        'the document holds no FHIR resource (no "resourceType"); expected a Bundle, Patient, Appointment, Encounter or DocumentReference',
    },
  ]);
});

test('an NDJSON line longer than maxLineChars stops reading', async (t) => {
  const items = await collect(
    readImport(
      'fhir-ndjson',
      bytes('{"resourceType":"Patient","id":"a"}\n', '{"resourceType":"Patient","id":"' + 'b'.repeat(90)),
      {
        maxLineChars: 64,
      },
    ),
  );
  t.deepEqual(
    items.map((item) => (item.kind === 'warning' ? item.warning.message : item.row)),
    [1, 'line 2 is longer than 64 characters; NDJSON holds one resource or Bundle per line; reading stopped'],
  );
});

test('skipped types are counted once per type, each reported on its first row', async (t) => {
  const items = await readNdjson(
    { resourceType: 'Observation' },
    { resourceType: 'Claim' },
    { resourceType: 'Observation' },
  );
  t.deepEqual(
    warningsOf(items).map((warning) => warning.message.split(' skipped')[0]),
    ['2 "Observation" resources were', '1 "Claim" resource was'],
  );
});

test('Encounter: a status named like an Object member is kept as written, not looked up', async (t) => {
  const encounter = (status: string) => ({
    resourceType: 'Encounter',
    id: `e-${status}`,
    status,
    subject: { reference: 'Patient/p1' },
    period: { start: '2024-05-01T09:30:00+02:00' },
  });
  const items = await readNdjson(...OBJECT_MEMBER_NAMES.map(encounter));
  t.deepEqual(
    items.map((item) => (item.kind === 'appointment' ? item.record.status : item.kind)),
    OBJECT_MEMBER_NAMES,
  );
  const [finished] = await readNdjson(encounter('finished'));
  t.is(finished?.kind === 'appointment' ? finished.record.status : undefined, 'fulfilled');
});
