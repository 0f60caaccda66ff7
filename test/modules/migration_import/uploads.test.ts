/**
 * Uploads that must be refused, with a clear 4xx and nothing changed: oversize, empty, compressed
 * or unlabelled sources; sources whose content is broken (malformed CSV, broken JSON, not UTF-8),
 * which become invalid jobs that cannot execute; binaries with a missing or wrong checksum, too
 * large, or conflicting with the file a reference already holds. No client-given name reaches
 * the filesystem. Limits are small here: WARD_IMPORT_MAX_SOURCE_SIZE and WARD_DOCUMENT_MAX_BYTES.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { blobPath } from '../../../modules/documents/lib/blob-store.ts';
import {
  API,
  clinicalCounts,
  createJob,
  execute,
  fixtureBytes,
  validate,
  world,
  type World,
} from './world.ts';

process.env.WARD_IMPORT_MAX_SOURCE_SIZE = '64kb';
process.env.WARD_DOCUMENT_MAX_BYTES = '1kb';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const errorOf = (body: unknown) => (body as { error: { code: string; message: string } }).error;

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** A body sent chunked, without Content-Length, so only the stream can tell its size. */
async function streamed(w: World, pathname: string, bytes: Buffer, headers: Record<string, string> = {}) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 16 * 1024)
        controller.enqueue(bytes.subarray(at, at + 16 * 1024));
      controller.close();
    },
  });
  const response = await fetch(`${w.base}${API}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.admin}`, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as unknown };
}

/** A FHIR job (its documents may refer to files), not yet validated. */
const fhirJob = (w: World) =>
  createJob(w, JSON.stringify({ resourceType: 'Patient', id: 'p-1' }), { format: 'fhir-ndjson' });

const jobCount = async (w: World) =>
  Number(((await w.knex('migration_import_job').count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

test('a source over the size limit is refused with 413, declared or streamed, and leaves no job and no file', async (t) => {
  const w = await world(t);
  const big = Buffer.alloc(65 * 1024, 'a');
  const declared = await w.api('POST', '/jobs?format=synthea-patients-csv&source_system=oldclinic', {
    body: big,
  });
  t.is(declared.status, 413);
  t.deepEqual(declared.body, {
    error: {
      code: 'body_too_large',
      message: 'the source file is larger than the limit of 65536 bytes',
      hint: 'split the export into several files, one job each (the operator sets the limit with WARD_IMPORT_MAX_SOURCE_SIZE)',
    },
  });
  const chunked = await streamed(w, '/jobs?format=synthea-patients-csv&source_system=oldclinic', big);
  t.is(chunked.status, 413);
  t.is(await jobCount(w), 0);
  t.deepEqual(await files(w.storage), []);
});

test('an empty, unlabelled or compressed source is refused with a 4xx saying what to send', async (t) => {
  const w = await world(t);
  const csv = await fixtureBytes('synthea/patients.csv');
  const empty = await w.api('POST', '/jobs?format=synthea-patients-csv&source_system=oldclinic');
  t.is(empty.status, 400);
  t.is(errorOf(empty.body).message, 'the request has no body: the source file is the request body');
  const noFormat = await w.api('POST', '/jobs?source_system=oldclinic', { body: csv });
  t.is(noFormat.status, 400);
  t.is(
    errorOf(noFormat.body).message,
    'the query parameter format is missing; it must be one of synthea-patients-csv, synthea-encounters-csv, fhir-json, fhir-ndjson',
  );
  const badFormat = await w.api('POST', '/jobs?format=xlsx&source_system=oldclinic', { body: csv });
  t.is(errorOf(badFormat.body).code, 'invalid_query');
  const badSystem = await w.api('POST', '/jobs?format=fhir-json&source_system=../etc', { body: csv });
  t.is(badSystem.status, 400);
  t.regex(
    errorOf(badSystem.body).message,
    /^the query parameter source_system is "..\/etc"; name the old system/,
  );
  const gzipped = await w.api('POST', '/jobs?format=synthea-patients-csv&source_system=oldclinic', {
    body: csv,
    headers: { 'content-encoding': 'gzip' },
  });
  t.is(gzipped.status, 415);
  t.is(await jobCount(w), 0);
});

test('malformed CSV, broken JSON and wrong encodings become invalid jobs that cannot execute and change no clinical data', async (t) => {
  const w = await world(t);
  const sources: Array<[string, string]> = [
    ['bad/malformed.csv', 'synthea-patients-csv'],
    ['bad/broken-bundle.json.txt', 'fhir-json'],
    ['bad/broken.ndjson', 'fhir-ndjson'],
    ['bad/latin1-patients.csv', 'synthea-patients-csv'],
    ['bad/utf16-patients.csv', 'synthea-patients-csv'],
  ];
  for (const [file, format] of sources) {
    const job = await createJob(w, await fixtureBytes(file), { format });
    t.is((await validate(w, job.id)).state, 'invalid', file);
    const refused = await w.api('POST', `/jobs/${job.id}/execute`);
    t.is(refused.status, 409, file);
    t.is(errorOf(refused.body).code, 'job_invalid', file);
  }
  t.deepEqual(await clinicalCounts(w.knex), { patients: 0, appointments: 0, documents: 0 });
  t.is(
    Number(((await w.knex('migration_import_source_map').count({ n: '*' })) as Array<{ n: string }>)[0]!.n),
    0,
  );
});

test('binaries: the checksum is required and verified, and a mismatch keeps nothing', async (t) => {
  const w = await world(t);
  const job = await fhirJob(w);
  const note = Buffer.from('a scanned note\n');
  const before = await files(w.storage);
  const missing = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, { body: note });
  t.is(missing.status, 400);
  t.is(errorOf(missing.body).code, 'missing_checksum');
  const malformed = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, {
    body: note,
    headers: { 'x-content-sha256': 'abc' },
  });
  t.is(malformed.status, 422);
  t.is(errorOf(malformed.body).code, 'invalid_checksum');
  const wrong = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, {
    body: note,
    headers: { 'x-content-sha256': sha256('something else') },
  });
  t.is(wrong.status, 422);
  t.is(
    errorOf(wrong.body).message,
    `the file's SHA-256 is ${sha256(note)}, not the expected ${sha256('something else')}`,
  );
  const noRef = await w.api('POST', `/jobs/${job.id}/binaries`, {
    body: note,
    headers: { 'x-content-sha256': sha256(note) },
  });
  t.is(noRef.status, 400);
  t.is(
    (
      await w.api('POST', '/jobs/999/binaries?ref=a', {
        body: note,
        headers: { 'x-content-sha256': sha256(note) },
      })
    ).status,
    404,
  );
  t.deepEqual(await files(w.storage), before);
  t.deepEqual(await w.knex('migration_import_binary').select('ref'), []);
});

test('binaries: the same file again is a duplicate, another file under a taken reference is refused', async (t) => {
  const w = await world(t);
  const job = await fhirJob(w);
  const note = Buffer.from('a scanned note\n');
  const send = (ref: string, bytes: Buffer) =>
    w.api('POST', `/jobs/${job.id}/binaries?ref=${encodeURIComponent(ref)}`, {
      body: bytes,
      headers: { 'content-type': 'text/plain', 'x-content-sha256': sha256(bytes) },
    });
  const first = await send('note.txt', note);
  t.is(first.status, 201);
  t.like(first.body, {
    ref: 'note.txt',
    sha256: sha256(note),
    size: note.length,
    contentType: 'text/plain',
    duplicate: false,
  });
  const again = await send('note.txt', note);
  t.is(again.status, 200);
  t.like(again.body, { ref: 'note.txt', duplicate: true });
  const other = await send('note.txt', Buffer.from('another note\n'));
  t.is(other.status, 409);
  t.is(errorOf(other.body).message, `reference "note.txt" of job ${job.id} already holds a different file`);
  // A reference is a database value only: the bytes live where their hash says.
  const sneaky = await send('../../../../tmp/owned.txt', note);
  t.is(sneaky.status, 201);
  const stored = await files(w.storage);
  t.true(stored.includes(path.relative(w.storage, blobPath(w.storage, sha256(note)))));
  t.false(stored.some((file) => file.includes('owned')));
  t.deepEqual(await w.knex('migration_import_binary').orderBy('id').pluck('ref'), [
    'note.txt',
    '../../../../tmp/owned.txt',
  ]);
  // The source's inline attachments are stored under inline:<document id>; no upload takes one.
  const reserved = await send('inline:d1', note);
  t.is(reserved.status, 400);
  t.like(errorOf(reserved.body), { code: 'invalid_query' });
  t.is(await w.knex('migration_import_binary').where({ ref: 'inline:d1' }).first(), undefined);
});

test('binaries over the documents size limit are refused with 413, declared or streamed', async (t) => {
  const w = await world(t);
  const job = await fhirJob(w);
  const scan = Buffer.alloc(2048, 'z');
  const headers = { 'x-content-sha256': sha256(scan) };
  const declared = await w.api('POST', `/jobs/${job.id}/binaries?ref=scan.pdf`, { body: scan, headers });
  t.is(declared.status, 413);
  t.is(errorOf(declared.body).message, 'the file is larger than the limit of 1024 bytes');
  const chunked = await streamed(w, `/jobs/${job.id}/binaries?ref=scan.pdf`, scan, headers);
  t.is(chunked.status, 413);
  t.deepEqual(await w.knex('migration_import_binary').select('ref'), []);
});

test('binaries go only to jobs that may still read them: not a CSV job, not a job that succeeded', async (t) => {
  const w = await world(t);
  const note = Buffer.from('a scanned note\n');
  const headers = { 'x-content-sha256': sha256(note) };
  const before = await files(w.storage);
  const csv = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  const toCsv = await w.api('POST', `/jobs/${csv.id}/binaries?ref=note.txt`, { body: note, headers });
  t.is(toCsv.status, 409);
  t.deepEqual(toCsv.body, {
    error: {
      code: 'binaries_not_used',
      message: `job ${csv.id} imports synthea-patients-csv, which refers to no files, so it has no use for a binary`,
      hint: 'upload binaries to the job of the FHIR export whose documents refer to them',
    },
  });
  const fhir = await createJob(
    w,
    JSON.stringify({
      resourceType: 'Patient',
      id: 'p-1',
      name: [{ family: 'Doe', given: ['Jo'] }],
      birthDate: '1980-01-01',
    }),
    { format: 'fhir-ndjson' },
  );
  t.is((await validate(w, fhir.id)).state, 'validated');
  t.is((await execute(w, fhir.id)).state, 'succeeded');
  const toFinished = await w.api('POST', `/jobs/${fhir.id}/binaries?ref=note.txt`, { body: note, headers });
  t.is(toFinished.status, 409);
  t.like(errorOf(toFinished.body), {
    code: 'job_finished',
    message: `job ${fhir.id} has succeeded: every record it holds is written, and no run of it will read a binary again`,
  });
  t.deepEqual(await files(w.storage).then((all) => all.filter((file) => file.startsWith('documents'))), []);
  t.true(before.every((file) => !file.startsWith('documents')));
  t.deepEqual(await w.knex('migration_import_binary').select('ref'), []);
});

test('a duplicate is recognised only once the body proves it; a conflict does not say what the reference holds', async (t) => {
  const w = await world(t);
  const job = await fhirJob(w);
  const note = Buffer.from('a scanned note\n');
  const headers = { 'x-content-sha256': sha256(note) };
  t.is((await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, { body: note, headers })).status, 201);
  // Another caller guesses the file: the declared hash alone, with any body, confirms nothing.
  const guess = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, {
    body: Buffer.from('not the note'),
    headers,
  });
  t.is(guess.status, 422);
  t.like(errorOf(guess.body), { code: 'checksum_mismatch' });
  const emptyGuess = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, {
    body: Buffer.alloc(0),
    headers: { ...headers, 'content-type': 'text/plain' },
  });
  t.is(emptyGuess.status, 422);
  // A different, honest file under the taken reference: refused, without the held file's hash.
  const other = Buffer.from('another note\n');
  const conflict = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, {
    body: other,
    headers: { 'x-content-sha256': sha256(other) },
  });
  t.is(conflict.status, 409);
  t.false(JSON.stringify(conflict.body).includes(sha256(note)));
  t.false(
    (await files(w.storage)).some((file) => file.endsWith(sha256(other))),
    'nothing kept',
  );
  const same = await w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, { body: note, headers });
  t.is(same.status, 200);
  t.like(same.body, { ref: 'note.txt', duplicate: true });
  t.is(Number((await w.knex('migration_import_binary').count({ n: '*' }).first())!.n), 1);
});
