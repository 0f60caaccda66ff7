/**
 * Validation over HTTP: every warning kind the module records surfaces through GET
 * /jobs/{id}/warnings with its row, field, severity and text; errors make the job `invalid` and
 * block execute with a 409 that says why, warnings do not; pages and the severity filter.
 */
import { createHash } from 'node:crypto';
import test from 'ava';

// Small, so inline content can be over it: the documents limit holds for inline content as for uploads.
process.env.WARD_DOCUMENT_MAX_BYTES = '1kb';
import { WARNING_CODES } from '../../../modules/migration_import/lib/index.ts';
import {
  allWarnings,
  clinicalCounts,
  createJob,
  execute,
  fixtureBytes,
  importFixture,
  validate,
  world,
  type WarningBody,
  type World,
} from './world.ts';

interface Case {
  source: () => Promise<Buffer | string>;
  format: string;
  state: 'validated' | 'invalid';
  /** `row:code:severity:field` of every warning, in source order. */
  warnings: string[];
}

const fixture = (file: string) => () => fixtureBytes(file);

/** A FHIR identifier typed as the medical record number. */
const mr = (value: string) => ({ type: { coding: [{ code: 'MR' }] }, value });

const CASES: Record<string, Case> = {
  'bad dates': {
    source: fixture('bad/bad-dates.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['2:bad_date:error:BIRTHDATE', '3:bad_date:error:BIRTHDATE', '4:missing_field:error:BIRTHDATE'],
  },
  'bad times': {
    source: fixture('bad/bad-times-encounters.csv'),
    format: 'synthea-encounters-csv',
    state: 'invalid',
    warnings: [
      '2:bad_timestamp:error:START',
      '2:unknown_patient:error:PATIENT',
      '3:end_before_start:error:STOP',
      '3:unknown_patient:error:PATIENT',
    ],
  },
  'broken JSON bundle': {
    source: fixture('bad/broken-bundle.json.txt'),
    format: 'fhir-json',
    state: 'invalid',
    warnings: ['3:json_syntax:error:'],
  },
  'broken NDJSON line': {
    source: fixture('bad/broken.ndjson'),
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: ['2:json_syntax:error:'],
  },
  'duplicate ids': {
    source: fixture('bad/duplicate-ids.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['4:duplicate_id:error:Id'],
  },
  'FHIR problems': {
    source: fixture('bad/fhir-problems.ndjson'),
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: [
      '1:fhir_not_a_resource:error:',
      '3:unknown_status:error:/status',
      '4:missing_field:error:/participant',
      '4:unknown_patient:error:/participant',
      '5:bad_hash:warning:/content/0/attachment/hash',
      '5:bad_size:warning:/content/0/attachment/size',
      '5:binary_missing:warning:/content/0/attachment/url',
      '6:fhir_unsupported_resource:info:',
    ],
  },
  'Latin-1 bytes': {
    source: fixture('bad/latin1-patients.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['3:bad_encoding:error:'],
  },
  'UTF-16': {
    source: fixture('bad/utf16-patients.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['1:bad_encoding:error:'],
  },
  'malformed CSV': {
    source: fixture('bad/malformed.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['3:csv_column_count:error:', '4:csv_bad_quote:error:LAST', '6:csv_unclosed_quote:error:FIRST'],
  },
  'missing columns': {
    source: fixture('bad/missing-columns.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['1:missing_columns:error:BIRTHDATE, GENDER'],
  },
  'missing fields': {
    source: fixture('bad/missing-fields.csv'),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['2:missing_field:error:LAST', '2:missing_field:error:FIRST'],
  },
  'unknown patients': {
    source: fixture('bad/unknown-patients-encounters.csv'),
    format: 'synthea-encounters-csv',
    state: 'invalid',
    warnings: ['2:unknown_patient:error:PATIENT', '3:unknown_patient:error:PATIENT'],
  },
  'unknown sex code': {
    source: fixture('bad/unknown-sex.csv'),
    format: 'synthea-patients-csv',
    state: 'validated',
    warnings: ['2:unknown_sex_code:warning:GENDER'],
  },
  'nothing but a byte order mark': {
    source: async () => Buffer.from([0xef, 0xbb, 0xbf]),
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['1:empty_file:error:'],
  },
  'a quote left open for a megabyte': {
    source: async () => `Id,BIRTHDATE,FIRST,LAST,GENDER\n"p1,${'x'.repeat(1_100_000)}\n`,
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['2:record_too_long:error:'],
  },
  'values the database cannot store': {
    source: async () =>
      `${JSON.stringify({ resourceType: 'Patient', id: 'p1', name: [{ family: 'S'.repeat(300), given: ['Jo'] }], birthDate: '1990-01-01' })}\n` +
      `${JSON.stringify({ resourceType: 'Patient', id: 'p2', name: [{ family: 'Ng', given: ['Cy\u0000x'] }], birthDate: '1990-01-01' })}\n`,
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: ['1:value_too_long:error:/name/0/family', '2:nul_character:error:/name/0/given'],
  },
  'characters nobody can see, in an MRN and a name (a Persian name keeps its ZWNJ)': {
    source: async () =>
      [
        {
          resourceType: 'Patient',
          id: 'p1',
          identifier: [mr('MRN\u200B1')],
          name: [{ family: 'Doe', given: ['Jo'] }],
          birthDate: '1990-01-01',
        },
        {
          resourceType: 'Patient',
          id: 'p2',
          identifier: [mr('MRN-2')],
          name: [{ family: 'Doe', given: ['Ann\u202Etxen'] }],
          birthDate: '1990-01-01',
        },
        {
          resourceType: 'Patient',
          id: 'p3',
          identifier: [mr('MRN-3')],
          name: [{ family: '\u0639\u0644\u06CC\u200C\u0632\u0627\u062F\u0647', given: ['Reza'] }],
          birthDate: '1990-01-01',
        },
      ]
        .map((resource) => `${JSON.stringify(resource)}\n`)
        .join(''),
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: ['1:invisible_character:error:/identifier', '2:invisible_character:error:/name/0/given'],
  },
  'documents Ward would refuse to upload, and inline content that is not what the source says': {
    source: async () =>
      [
        {
          resourceType: 'Patient',
          id: 'p1',
          name: [{ family: 'Doe', given: ['Jo'] }],
          birthDate: '1990-01-01',
        },
        ...[
          { url: 'a.txt', title: 'Bell\u0007' },
          { url: 'b.txt', title: 'B', contentType: 'text/html\r\nSet-Cookie: a=b' },
          { title: 'C', data: '@@@@' },
          { title: 'D', data: Buffer.alloc(2048).toString('base64') },
          { title: 'E', data: Buffer.from('hello').toString('base64'), size: 6 },
        ].map((attachment, index) => ({
          resourceType: 'DocumentReference',
          id: `d${index}`,
          subject: { reference: 'Patient/p1' },
          content: [{ attachment }],
        })),
      ]
        .map((resource) => `${JSON.stringify(resource)}\n`)
        .join(''),
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: [
      '2:invalid_title:error:/content/0/attachment/title',
      '2:binary_missing:warning:/content/0/attachment/url',
      '3:invalid_content_type:error:/content/0/attachment/contentType',
      '3:binary_missing:warning:/content/0/attachment/url',
      '4:bad_base64:error:/content/0/attachment/data',
      '5:content_too_large:error:/content/0/attachment/data',
      '6:binary_mismatch:error:/content/0/attachment/size',
    ],
  },
  'a CSV header naming a column twice': {
    source: async () => 'Id,BIRTHDATE,FIRST,LAST,GENDER,Id\np1,1980-01-01,Ann,Lee,F,p2\n',
    format: 'synthea-patients-csv',
    state: 'invalid',
    warnings: ['1:duplicate_column:error:Id'],
  },
  'JSON with a key twice and a number out of range': {
    source: async () =>
      '{"resourceType":"Patient","id":"p1","id":"p2","name":[{"family":"Doe","given":["Jo"]}],"birthDate":"1990-01-01","extension":[{"valueDecimal":1e309}]}\n',
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: ['1:json_duplicate_key:error:/id', '1:json_inexact_number:warning:/extension/0/valueDecimal'],
  },
  'a FHIR status Ward does not keep': {
    source: async () =>
      `${JSON.stringify({ resourceType: 'Patient', id: 'p1', name: [{ family: 'Doe', given: ['Jo'] }], birthDate: '1990-01-01' })}\n` +
      `${JSON.stringify({ resourceType: 'Appointment', id: 'a1', status: 'proposed', start: '2024-05-01T09:00:00Z', end: '2024-05-01T09:30:00Z', participant: [{ actor: { reference: 'Patient/p1' } }, { actor: { reference: 'Practitioner/d1', display: 'Dr Who' } }] })}\n`,
    format: 'fhir-ndjson',
    state: 'invalid',
    warnings: ['2:unknown_status:error:/status'],
  },
};

const short = (warning: WarningBody) => `${warning.row}:${warning.code}:${warning.severity}:${warning.field}`;

async function validated(w: World, c: Case) {
  const job = await createJob(w, await c.source(), { format: c.format });
  return { job: await validate(w, job.id), warnings: await allWarnings(w, job.id) };
}

for (const [name, c] of Object.entries(CASES)) {
  test(`${name}: ${c.state}, with ${[...new Set(c.warnings.map((warning) => warning.split(':')[1]))].join(', ')}`, async (t) => {
    const w = await world(t);
    const { job, warnings } = await validated(w, c);
    t.is(job.state, c.state);
    t.deepEqual(warnings.map(short), c.warnings);
    t.true(warnings.every((warning) => warning.phase === 'validate' && warning.message.length > 20));
    t.is(job.counts.warnings?.error, c.warnings.filter((warning) => warning.includes(':error:')).length);
  });
}

test('every warning code of the lib, and Ward-only statuses, surface through GET warnings', async (t) => {
  const codes = new Set(
    Object.values(CASES).flatMap((c) => c.warnings.map((warning) => warning.split(':')[1])),
  );
  t.deepEqual(
    [...WARNING_CODES].filter((code) => !codes.has(code)),
    [],
  );
});

test('messages are the operator-grade texts of the lib', async (t) => {
  const w = await world(t);
  const { warnings } = await validated(w, CASES['bad dates']!);
  t.is(warnings[0]!.message, 'birth date "1985-02-30" is not a calendar date; expected YYYY-MM-DD');
  const statuses = await validated(w, CASES['a FHIR status Ward does not keep']!);
  t.is(
    statuses.warnings[0]!.message,
    'status "proposed" is not an appointment status; expected one of booked, arrived, fulfilled, cancelled, noshow',
  );
});

test('an invisible character is named with its code point and position', async (t) => {
  const w = await world(t);
  const { warnings } = await validated(
    w,
    CASES['characters nobody can see, in an MRN and a name (a Persian name keeps its ZWNJ)']!,
  );
  t.deepEqual(
    warnings.map((warning) => warning.message),
    [
      'MRN contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 4, which would make it differ from the same text typed in Ward; remove it from the source',
      'given name contains U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 4, which would make it differ from the same text typed in Ward; remove it from the source',
    ],
  );
});

test('an MRN written decomposed is the precomposed MRN it looks like: mrn_taken, never a second patient', async (t) => {
  const w = await world(t);
  await w.knex('patients_patient').insert({ mrn: '\u00C9-42', family_name: 'Walk-in', given_name: 'Mary' });
  const patient = (id: string, mrn: string) => ({
    resourceType: 'Patient',
    id,
    identifier: [mr(mrn)],
    name: [{ family: 'Lee', given: ['Min'] }],
    birthDate: '1990-01-01',
  });
  const source = [patient('p1', 'E\u0301-42'), patient('p2', '\u00C5-1'), patient('p3', 'A\u030A-1')]
    .map((resource) => `${JSON.stringify(resource)}\n`)
    .join('');
  const job = await createJob(w, source, { format: 'fhir-ndjson' });
  t.is((await validate(w, job.id)).state, 'validated');
  const done = await execute(w, job.id);
  t.is(done.state, 'partially_succeeded');
  t.like(done.results.patient, { created: 1, failed: 2 });
  t.deepEqual(
    (await allWarnings(w, job.id, 'severity=error')).map((warning) => `${warning.row}:${warning.code}`),
    ['1:mrn_taken', '3:mrn_taken'],
  );
  t.deepEqual(await w.knex('patients_patient').orderBy('id').pluck('mrn'), ['\u00C9-42', '\u00C5-1']);
});

test('an invalid job cannot be executed: 409 naming its errors, and no clinical row appears', async (t) => {
  const w = await world(t);
  const { job } = await validated(w, CASES['malformed CSV']!);
  const answer = await w.api('POST', `/jobs/${job.id}/execute`);
  t.is(answer.status, 409);
  t.deepEqual(answer.body, {
    error: {
      code: 'job_invalid',
      message: `job ${job.id} cannot be executed: validation found 3 errors in its source`,
      hint: `read them with GET /jobs/${job.id}/warnings?severity=error, fix the source and create a new job (or upload missing binaries and validate again)`,
    },
  });
  t.deepEqual(await clinicalCounts(w.knex), { patients: 0, appointments: 0, documents: 0 });
});

test('a job not validated yet cannot be executed', async (t) => {
  const w = await world(t);
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  const answer = await w.api('POST', `/jobs/${job.id}/execute`);
  t.is(answer.status, 409);
  t.is((answer.body as { error: { code: string } }).error.code, 'job_not_validated');
});

test('warnings do not block: unknown sex codes import as unknown', async (t) => {
  const w = await world(t);
  const job = await execute(w, (await validated(w, CASES['unknown sex code']!)).job.id);
  t.is(job.state, 'succeeded');
  t.deepEqual(await w.knex('patients_patient').orderBy('id').pluck('sex'), ['unknown', 'unknown']);
});

test('warnings page in source order with a cursor, and filter by severity', async (t) => {
  const w = await world(t);
  const { job } = await validated(w, CASES['FHIR problems']!);
  const first = await w.api('GET', `/jobs/${job.id}/warnings?limit=3`);
  const page = first.body as { items: WarningBody[]; nextCursor: string };
  t.deepEqual(page.items.map(short), CASES['FHIR problems']!.warnings.slice(0, 3));
  const second = await w.api('GET', `/jobs/${job.id}/warnings?limit=3&cursor=${page.nextCursor}`);
  t.deepEqual(
    (second.body as { items: WarningBody[] }).items.map(short),
    CASES['FHIR problems']!.warnings.slice(3, 6),
  );
  t.deepEqual(
    (await allWarnings(w, job.id, 'severity=warning')).map((warning) => warning.code),
    ['bad_hash', 'bad_size', 'binary_missing'],
  );
  t.deepEqual(
    (await allWarnings(w, job.id, 'severity=info')).map((warning) => warning.code),
    ['fhir_unsupported_resource'],
  );
  const bad = await w.api('GET', `/jobs/${job.id}/warnings?severity=fatal`);
  t.is(bad.status, 400);
  t.is(
    (bad.body as { error: { message: string } }).error.message,
    'the query parameter severity must be one of error, warning, info, not "fatal"',
  );
  t.is((await w.api('GET', '/jobs/999/warnings')).status, 404);
});

test('a second validation replaces the first warnings: an uploaded binary clears binary_missing', async (t) => {
  const w = await world(t);
  await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  const note = Buffer.from('scan\n');
  const documentReference = {
    resourceType: 'DocumentReference',
    id: 'd1',
    subject: { reference: 'Patient/fb165133-d04c-455d-9e6c-f09c5e5335e3' },
    content: [{ attachment: { contentType: 'text/plain', url: 'scan.txt', title: 'Scan' } }],
  };
  const job = await createJob(w, `${JSON.stringify(documentReference)}\n`, { format: 'fhir-ndjson' });
  t.deepEqual(
    (await allWarnings(w, (await validate(w, job.id)).id)).map((warning) => warning.code),
    ['binary_missing'],
  );
  const upload = await w.api('POST', `/jobs/${job.id}/binaries?ref=scan.txt`, {
    body: note,
    headers: { 'x-content-sha256': createHash('sha256').update(note).digest('hex') },
  });
  t.is(upload.status, 201, upload.text);
  t.deepEqual(await allWarnings(w, (await validate(w, job.id)).id), []);
});
