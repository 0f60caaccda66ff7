/**
 * Real Synthea exporter output (test/fixtures/synthea-export, written by no one here): the
 * CSV export and four per-patient FHIR transaction Bundles, whose clinical notes are inline base64
 * attachments, import completely through the HTTP API, and importing the same files again
 * changes nothing.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import { call } from '../../helpers/app.ts';
import { allWarnings, clinicalCounts, createJob, execute, validate, world, type World } from './world.ts';

/** Kept apart from test/fixtures/import, which the fixture generator owns whole. */
const EXPORT = fileURLToPath(new URL('../../fixtures/synthea-export/', import.meta.url));

async function importFile(w: World, file: string, format: string) {
  const job = await createJob(w, await readFile(path.join(EXPORT, file)), { format });
  const validated = await validate(w, job.id);
  if (validated.state !== 'validated')
    throw new Error(`${file} did not validate: ${JSON.stringify(validated)}`);
  return execute(w, job.id);
}

async function csvFiles(): Promise<Array<{ file: string; format: string }>> {
  return [
    { file: 'patients.csv', format: 'synthea-patients-csv' },
    { file: 'encounters.csv', format: 'synthea-encounters-csv' },
  ];
}

async function bundleFiles(): Promise<Array<{ file: string; format: string }>> {
  const bundles = (await readdir(path.join(EXPORT, 'fhir'))).sort();
  return bundles.map((name) => ({ file: `fhir/${name}`, format: 'fhir-json' }));
}

const files = async () => [...(await csvFiles()), ...(await bundleFiles())];

/** Imports each file, one job each; asserts none has an error or a warning (skipped resource types are info). */
async function importAll(t: ExecutionContext, w: World, list: Array<{ file: string; format: string }>) {
  const totals = { created: 0, updated: 0, skipped: 0, failed: 0 };
  for (const { file, format } of list) {
    const job = await importFile(w, file, format);
    t.is(job.state, 'succeeded', file);
    const problems = (await allWarnings(w, job.id)).filter((warning) => warning.severity !== 'info');
    t.deepEqual(problems, [], file);
    for (const kind of Object.values(job.results))
      for (const outcome of Object.keys(totals) as Array<keyof typeof totals>)
        totals[outcome] += kind[outcome] ?? 0;
  }
  return totals;
}

const snapshot = async (w: World) => ({
  counts: await clinicalCounts(w.knex),
  patients: await w.knex('patients_patient').orderBy('id').select('*'),
  appointments: await w.knex('appointments_appointment').orderBy('id').select('*'),
  documents: await w.knex('documents_document').orderBy('id').select('*'),
});

test('the CSV export and the four FHIR Bundles import completely; importing either again changes nothing', async (t) => {
  const w = await world(t);
  t.like(await importAll(t, w, await csvFiles()), { created: 115 + 275, updated: 0, failed: 0 });
  const afterCsv = await snapshot(w);
  t.deepEqual(afterCsv.counts, { patients: 115, appointments: 275, documents: 0 });
  t.deepEqual(await importAll(t, w, await csvFiles()), { created: 0, updated: 0, skipped: 390, failed: 0 });
  t.deepEqual(await snapshot(w), afterCsv);

  // The Bundles' patients are the CSV's (same source system, same ids): they only add phone
  // numbers, the country, and write the state as "MA" where the CSV wrote "Massachusetts". Their
  // 31 encounters are visits the CSV booked already (same patient and times, other ids): they
  // update those appointments rather than book them twice. Only the 31 notes are new.
  t.deepEqual(await importAll(t, w, await bundleFiles()), {
    created: 31,
    updated: 4 + 31,
    skipped: 0,
    failed: 0,
  });
  const afterBundles = await snapshot(w);
  t.deepEqual(afterBundles.counts, { patients: 115, appointments: 275, documents: 31 });
  t.deepEqual(await importAll(t, w, await bundleFiles()), { created: 0, updated: 0, skipped: 66, failed: 0 });
  t.deepEqual(await snapshot(w), afterBundles);
});

test("an inline note is a document whose download is the note's bytes, typed and titled as the source says", async (t) => {
  const w = await world(t);
  for (const { file, format } of await files())
    if (file.includes('Blaine377') || file.endsWith('patients.csv')) await importFile(w, file, format);
  const documents = await w.knex('documents_document').orderBy('id').select('*');
  t.is(documents.length, 6);
  t.like(documents[0], { title: 'History and physical note', content_type: 'text/plain; charset=utf-8' });
  const answer = await call(w.base, 'GET', `/api/v1/documents/documents/${documents[0].id}/content`, {
    token: w.admin,
  });
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.true(answer.text.startsWith('\n2014-07-10\n\n# Chief Complaint\nNo complaints.'));
});

// Serial, so that its batch size (read when the app starts) reaches no other test.
test.serial('two visits one source places at the same time stay two, even in separate batches', async (t) => {
  // One record a transaction: the twin is planned after the first visit was written.
  process.env.WARD_IMPORT_BATCH_SIZE = '1';
  const w = await world(t).finally(() => delete process.env.WARD_IMPORT_BATCH_SIZE);
  await importFile(w, 'patients.csv', 'synthea-patients-csv');
  const [header, first] = (await readFile(path.join(EXPORT, 'encounters.csv'), 'utf8')).split('\n');
  const twin = `00000000${first!.slice(first!.indexOf('-'))}`;
  const job = await createJob(w, [header, first, twin, ''].join('\n'), { format: 'synthea-encounters-csv' });
  t.is((await validate(w, job.id)).state, 'validated');
  t.like((await execute(w, job.id)).results.appointment, { created: 2 });
  t.is((await clinicalCounts(w.knex)).appointments, 2);
});
