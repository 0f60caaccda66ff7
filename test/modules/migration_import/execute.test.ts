/**
 * Execute over HTTP: records land in the clinic tables, a re-run (of the same job or of a new job
 * of the same source system) updates or skips through the import mapping and never duplicates,
 * preview says what execute will do without doing it, and rows that cannot be written fail alone.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { blobPath } from '../../../modules/documents/lib/blob-store.ts';
import { fixturesDir } from '../../../scripts/generate-import-fixtures.ts';
import { addUser } from '../../helpers/app.ts';
import {
  allWarnings,
  clinicalCounts,
  createJob,
  execute,
  fixtureBytes,
  importFixture,
  validate,
  world,
  type JobBody,
  type World,
} from './world.ts';

const none = { created: 0, updated: 0, skipped: 0, failed: 0 };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function uploadNotes(w: World, jobId: number, only?: (file: string) => boolean): Promise<number> {
  const dir = path.join(fixturesDir, 'fhir', 'binaries');
  let uploaded = 0;
  for (const file of (await readdir(dir)).filter(only ?? (() => true))) {
    const bytes = await readFile(path.join(dir, file));
    const answer = await w.api('POST', `/jobs/${jobId}/binaries?ref=${file}`, {
      body: bytes,
      headers: { 'content-type': 'text/plain', 'x-content-sha256': sha256(bytes) },
    });
    if (answer.status !== 201) throw new Error(`${file}: ${answer.status} ${answer.text}`);
    uploaded++;
  }
  return uploaded;
}

test('patients then encounters land in the clinic tables, with every field', async (t) => {
  const w = await world(t);
  const patients = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  t.is(patients.state, 'succeeded');
  t.deepEqual(patients.results.patient, { ...none, created: 50 });
  t.deepEqual(patients.progress, { done: 50, total: 50, percent: 100 });
  const encounters = await importFixture(w, 'synthea/encounters.csv', 'synthea-encounters-csv');
  t.deepEqual(encounters.results.appointment, { ...none, created: 101 });
  t.deepEqual(await clinicalCounts(w.knex), { patients: 50, appointments: 101, documents: 0 });
  const amara = await w
    .knex('patients_patient')
    .where({ mrn: 'c231e770-1dcd-4f96-85ea-5e02b598edb4' })
    .first();
  t.like(amara, {
    family_name: 'Okafor',
    given_name: 'Amara',
    sex: 'female',
    phone: null,
    address: {
      line: ['432 Maple Ave, Unit 10'],
      city: 'Worcester',
      state: 'Massachusetts',
      postalCode: '02000',
    },
    // Written through the patients API, so search and the duplicate check find imported patients.
    search_text: ' okafor amara c231e7701dcd4f9685ea5e02b598edb4',
    name_key: 'okafor|amara',
  });
  const visit = await w
    .knex('appointments_appointment')
    .where({ patient_id: amara.id })
    .orderBy('start_at')
    .first();
  t.is(visit.status, 'fulfilled');
  t.true(visit.end_at > visit.start_at);
  // Each PROVIDER id becomes a practitioner named after it, one per id, and every visit books one.
  const practitioner = await w.knex('appointments_practitioner').where({ id: visit.practitioner_id }).first();
  t.is(practitioner.name, visit.practitioner_name);
  const providers = await w.knex('appointments_appointment').countDistinct('practitioner_name as n').first();
  const records = await w.knex('appointments_practitioner').count('* as n').first();
  t.is(Number(records!.n), Number(providers!.n));
  t.deepEqual(await w.knex('appointments_appointment').whereNull('practitioner_id').select('id'), []);
});

test('executing a job again, or a new job of the same source, creates no duplicate', async (t) => {
  const w = await world(t);
  const first = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  const again = await execute(w, first.id);
  t.is(again.state, 'succeeded');
  t.deepEqual(again.results.patient, { ...none, skipped: 50 });
  const second = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  t.deepEqual(second.results.patient, { ...none, skipped: 50 });
  t.deepEqual(await clinicalCounts(w.knex), { patients: 50, appointments: 0, documents: 0 });
  t.is(
    Number(((await w.knex('migration_import_source_map').count({ n: '*' })) as Array<{ n: string }>)[0]!.n),
    50,
  );
  // Another source system is another clinic: its ids are not this one's, and its MRNs collide.
  const other = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
    source_system: 'otherclinic',
  });
  const collided = await execute(w, (await validate(w, other.id)).id);
  t.is(collided.state, 'failed');
  t.deepEqual(collided.results.patient, { ...none, failed: 50 });
  t.is(
    await w
      .knex('patients_patient')
      .count({ n: '*' })
      .first()
      .then((row) => Number(row!.n)),
    50,
  );
});

test('executing a job again keeps the history of its runs; results are the latest run', async (t) => {
  const w = await world(t);
  const first = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  await w.knex('patients_patient').where({ mrn: 'fb165133-d04c-455d-9e6c-f09c5e5335e3' }).delete();
  const again = await execute(w, first.id);
  const third = await execute(w, first.id);
  type Run = { run: number; state: string; results: JobBody['results']; error: string | null };
  const runs = (third as JobBody & { runs: Array<Run & { startedAt: string; finishedAt: string }> }).runs;
  t.deepEqual(
    runs.map(({ run, state, results, error }) => ({ run, state, patient: results.patient, error })),
    [
      { run: 1, state: 'succeeded', patient: { ...none, created: 50 }, error: null },
      { run: 2, state: 'succeeded', patient: { ...none, created: 1, skipped: 49 }, error: null },
      { run: 3, state: 'succeeded', patient: { ...none, skipped: 50 }, error: null },
    ],
  );
  t.deepEqual(again.results.patient, { ...none, created: 1, skipped: 49 });
  t.deepEqual(third.results, runs[2]!.results);
  for (const { startedAt, finishedAt } of runs) t.true(Date.parse(startedAt) <= Date.parse(finishedAt));
  t.true(Date.parse(runs[0]!.finishedAt) <= Date.parse(runs[1]!.startedAt));
});

test('the same clinic as FHIR after CSV, from the same source system, changes nothing it already has', async (t) => {
  const w = await world(t);
  await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  await importFixture(w, 'synthea/encounters.csv', 'synthea-encounters-csv');
  const job = await createJob(w, await fixtureBytes('fhir/resources.ndjson'), { format: 'fhir-ndjson' });
  t.is(await uploadNotes(w, job.id), 17);
  t.is((await validate(w, job.id)).state, 'validated');
  const done = await execute(w, job.id);
  t.is(done.state, 'succeeded');
  t.deepEqual(done.results, {
    patient: { ...none, skipped: 50 },
    appointment: { ...none, skipped: 101 },
    document: { ...none, created: 17 },
  });
  t.deepEqual(await clinicalCounts(w.knex), { patients: 50, appointments: 101, documents: 17 });
  const note = await readFile(path.join(fixturesDir, 'fhir', 'binaries', 'note-0001.txt'));
  const document = await w
    .knex('documents_document')
    .where({ sha256: sha256(note) })
    .first();
  t.like(document, {
    content_type: 'text/plain; charset=utf-8',
    size: String(note.length),
    source: 'import',
  });
  t.is((await stat(blobPath(w.storage, sha256(note)))).size, note.length);
});

test('preview counts what execute would create, update and skip, shows before and after, and changes nothing', async (t) => {
  const w = await world(t);
  const fresh = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  const created = await w.api('POST', `/jobs/${fresh.id}/preview?sample=2`);
  t.is(created.status, 200, created.text);
  t.like(created.body, { job: fresh.id, totals: { create: 50, update: 0, skip: 0 }, failures: { count: 0 } });
  t.is((created.body as { samples: { create: unknown[] } }).samples.create.length, 2);
  t.deepEqual(await clinicalCounts(w.knex), { patients: 0, appointments: 0, documents: 0 });

  await execute(w, (await validate(w, fresh.id)).id);
  const csv = (await fixtureBytes('synthea/patients.csv'))
    .toString('utf8')
    .replace(',Maria,Smith,', ',Maria,Smith-Jones,');
  const changed = await createJob(w, csv, { format: 'synthea-patients-csv' });
  const before = await w.knex('patients_patient').orderBy('id').select('id', 'family_name', 'updated_at');
  const answer = await w.api('POST', `/jobs/${changed.id}/preview`);
  const preview = answer.body as {
    counts: { patient: Record<string, number> };
    samples: {
      update: Array<{ row: number; action: string; before: object; after: object; changes: unknown[] }>;
    };
  };
  t.deepEqual(preview.counts.patient, { create: 0, update: 1, skip: 49 });
  t.like(preview.samples.update[0], {
    row: 2,
    action: 'update',
    before: { familyName: 'Smith' },
    after: { familyName: 'Smith-Jones' },
    changes: [{ field: 'familyName', before: 'Smith', after: 'Smith-Jones' }],
  });
  t.deepEqual(
    await w.knex('patients_patient').orderBy('id').select('id', 'family_name', 'updated_at'),
    before,
  );
  const done = await execute(w, (await validate(w, changed.id)).id);
  t.deepEqual(done.results.patient, { ...none, updated: 1, skipped: 49 });
  t.is(
    await w
      .knex('patients_patient')
      .where({ family_name: 'Smith-Jones' })
      .count({ n: '*' })
      .first()
      .then((row) => Number(row!.n)),
    1,
  );
});

test('documents whose binary is missing fail; after the upload a retry writes only them and skips the rest', async (t) => {
  const w = await world(t);
  const job = await createJob(w, await fixtureBytes('fhir/bundle.json'), { format: 'fhir-json' });
  await uploadNotes(w, job.id, (file) => file < 'note-0010.txt');
  const validated = await validate(w, job.id);
  t.is(validated.state, 'validated');
  t.is(validated.counts.warnings?.warning, 8, 'binary_missing is a warning: it does not block');
  const partial = await execute(w, job.id);
  t.is(partial.state, 'partially_succeeded');
  t.deepEqual(partial.results.document, { ...none, created: 9, failed: 8 });
  const failures = await allWarnings(w, job.id, 'severity=error');
  t.is(failures.length, 8);
  t.true(failures.every((failure) => failure.phase === 'execute' && failure.code === 'binary_missing'));
  t.regex(failures[0]!.message, /^binary "note-0010.txt" has not been uploaded to this job; upload it/);

  await uploadNotes(w, job.id, (file) => file >= 'note-0010.txt');
  const retried = await execute(w, job.id);
  t.is(retried.state, 'succeeded');
  t.deepEqual(retried.results, {
    patient: { ...none, skipped: 50 },
    appointment: { ...none, skipped: 101 },
    document: { ...none, created: 8, skipped: 9 },
  });
  t.deepEqual(
    await allWarnings(w, job.id, 'severity=error'),
    [],
    'a fresh run replaces the earlier run errors',
  );
  t.deepEqual(await clinicalCounts(w.knex), { patients: 50, appointments: 101, documents: 17 });
});

test('a new patient whose MRN another Ward patient has fails alone with mrn_taken', async (t) => {
  const w = await world(t);
  const [owner] = (await w
    .knex('patients_patient')
    .insert({ mrn: 'fb165133-d04c-455d-9e6c-f09c5e5335e3', family_name: 'Walk-in', given_name: 'Mary' })
    .returning('id')) as Array<{ id: number }>;
  const job = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  t.is(job.state, 'partially_succeeded');
  t.deepEqual(job.results.patient, { ...none, created: 49, failed: 1 });
  const [failure] = await allWarnings(w, job.id, 'severity=error');
  t.like(failure, { row: 2, field: 'mrn', code: 'mrn_taken', phase: 'execute' });
  t.is(
    failure!.message,
    `MRN "fb165133-d04c-455d-9e6c-f09c5e5335e3" already belongs to Ward patient ${owner!.id}, which is not this source's patient "fb165133-d04c-455d-9e6c-f09c5e5335e3"; merge or renumber one of them in Ward, then execute the job again`,
  );
  t.is(
    await w
      .knex('patients_patient')
      .where({ id: owner!.id })
      .first()
      .then((row) => row.family_name),
    'Walk-in',
  );
});

const patient = (id: string, mrn: string) => ({
  resourceType: 'Patient',
  id,
  identifier: [{ type: { coding: [{ code: 'MR' }] }, value: mrn }],
  name: [{ family: `Family ${id}`, given: ['Given'] }],
  birthDate: '1980-01-01',
});

test('preview predicts the mrn_taken failures execute then has: an MRN a Ward patient holds, or an earlier new patient of the source', async (t) => {
  const w = await world(t);
  const [owner] = (await w
    .knex('patients_patient')
    .insert({ mrn: 'M-1', family_name: 'Walk-in', given_name: 'Mary' })
    .returning('id')) as Array<{ id: number }>;
  const source = [patient('p-1', 'M-1'), patient('p-2', 'M-2'), patient('p-3', 'M-2'), patient('p-4', 'M-4')]
    .map((resource) => JSON.stringify(resource))
    .join('\n');
  const job = await createJob(w, source, { format: 'fhir-ndjson' });
  t.is((await validate(w, job.id)).state, 'validated');
  const answer = await w.api('POST', `/jobs/${job.id}/preview`);
  t.is(answer.status, 200);
  const preview = answer.body as {
    counts: Record<string, Record<string, number>>;
    failures: {
      count: number;
      samples: Array<{ row: number; field: string; code: string; message: string }>;
    };
  };
  t.deepEqual(preview.counts.patient, { create: 2, update: 0, skip: 0 });
  t.is(preview.failures.count, 2);
  t.deepEqual(
    preview.failures.samples.map(({ row, field, code }) => ({ row, field, code })),
    [
      { row: 1, field: 'mrn', code: 'mrn_taken' },
      { row: 3, field: 'mrn', code: 'mrn_taken' },
    ],
  );
  t.is(
    preview.failures.samples[0]!.message,
    `MRN "M-1" already belongs to Ward patient ${owner!.id}, which is not this source's patient "p-1"; merge or renumber one of them in Ward, then execute the job again`,
  );
  t.is(
    preview.failures.samples[1]!.message,
    `MRN "M-2" is also the MRN of a new patient earlier in this source, which is not this source's patient "p-3"; give each patient its own MRN in the source, or merge them in Ward once imported, then execute the job again`,
  );
  t.deepEqual(await clinicalCounts(w.knex), { patients: 1, appointments: 0, documents: 0 });
  const done = await execute(w, job.id);
  t.deepEqual(done.results.patient, { ...none, created: 2, failed: 2 });
  t.deepEqual(
    (await allWarnings(w, job.id, 'severity=error')).map(({ row, field, code, message }) => ({
      row,
      field,
      code,
      message,
    })),
    preview.failures.samples.map(({ row, field, code, message }) => ({ row, field, code, message })),
    'execute refuses exactly the rows preview said it would, for the same reason',
  );
});

test('a row the database refuses fails alone; the rest of its batch is written', async (t) => {
  const w = await world(t);
  // A rule validation cannot know of: a constraint the clinic added to the patients table.
  await w.knex.raw(
    `alter table patients_patient add constraint clinic_rule check (not (given_name = 'Maria' and family_name = 'Smith'))`,
  );
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  const done = await execute(w, (await validate(w, job.id)).id);
  t.is(done.state, 'partially_succeeded');
  t.deepEqual(done.results.patient, { ...none, created: 49, failed: 1 });
  const [failure] = await allWarnings(w, job.id, 'severity=error');
  t.like(failure, { row: 2, code: 'write_failed', phase: 'execute' });
  t.regex(
    failure!.message,
    /^Ward refused the row: new row for relation "patients_patient" violates check constraint "clinic_rule"/,
  );
  t.notRegex(failure!.message, /insert into/i, 'no SQL in what the operator reads');
});

test('GET /jobs lists newest first with a cursor; GET /jobs/{id} shows one; unknown ids are 404', async (t) => {
  const w = await world(t);
  await addUser(w.knex, 'bob', ['admin']);
  const ids: number[] = [];
  for (let index = 0; index < 3; index++)
    ids.push(
      (await createJob(w, await fixtureBytes('synthea/patients.csv'), { format: 'synthea-patients-csv' })).id,
    );
  const first = (await w.api('GET', '/jobs?limit=2')).body as { items: JobBody[]; nextCursor: string };
  t.deepEqual(
    first.items.map((job) => job.id),
    [ids[2], ids[1]],
  );
  const rest = (await w.api('GET', `/jobs?limit=2&cursor=${first.nextCursor}`)).body as {
    items: JobBody[];
    nextCursor: null;
  };
  t.deepEqual(
    rest.items.map((job) => job.id),
    [ids[0]],
  );
  t.is(rest.nextCursor, null);
  t.deepEqual(((await w.api('GET', '/jobs?state=validated')).body as { items: unknown[] }).items, []);
  const one = await w.api('GET', `/jobs/${ids[0]}`);
  t.like(one.body, {
    id: ids[0],
    sourceSystem: 'oldclinic',
    format: 'synthea-patients-csv',
    state: 'created',
    source: { bytes: 12284 },
    createdBy: 'ada',
  });
  t.is((await w.api('GET', '/jobs/424242')).status, 404);
  t.is((await w.api('GET', '/jobs/abc')).status, 404);
  t.is((await w.api('POST', '/jobs/424242/execute')).status, 404);
});
