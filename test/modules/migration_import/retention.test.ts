/**
 * Retention of the raw exports: sources (with columns Ward never stores) are readable by Ward's
 * user alone; a purge, under its own permission, deletes a job's source, binaries and warnings,
 * keeps the job marked with who purged it and when, is logged, and leaves the imported records
 * and a document's bytes in place; a purged job cannot be run again.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import { pino } from 'pino';
import { withBlobLock } from '../../../modules/documents/lib/blob-lock.ts';
import { blobPath } from '../../../modules/documents/lib/blob-store.ts';
import { storeBinary } from '../../../modules/migration_import/lib/jobs/binary-store.ts';
import { purgeJob } from '../../../modules/migration_import/lib/jobs/purge.ts';
import { sourcePath } from '../../../modules/migration_import/lib/jobs/source-file.ts';
import { fixturesDir } from '../../../scripts/generate-import-fixtures.ts';
import {
  clinicalCounts,
  createJob,
  execute,
  fixtureBytes,
  importFixture,
  importSdk,
  purgeDeps,
  validate,
  world,
  type World,
} from './world.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Polls `done` every 20 ms (a test of its own times out if it never holds). */
const until = async (done: () => Promise<boolean>) => {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
};
const mode = async (file: string) => (await stat(file)).mode & 0o777;
const count = async (w: World, table: string, where: object) =>
  Number(((await w.knex(table).where(where).count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

test('a source is stored with mode 0600 in folders of mode 0700', async (t) => {
  const w = await world(t);
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  const file = sourcePath(w.storage, job.id);
  t.is(await mode(file), 0o600);
  t.is(await mode(path.dirname(file)), 0o700);
  t.is(await mode(path.dirname(path.dirname(file))), 0o700);
});

test("a purge deletes the job's source, binaries and warnings, keeps the job marked, is logged, and leaves what it imported", async (t) => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const w = await world(t, { logger });
  const { knex, storage } = w;
  await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  const bundle = await createJob(w, await fixtureBytes('fhir/bundle.json'), { format: 'fhir-json' });
  const note = Buffer.from('a note no document uses\n');
  const kept = await w.api('POST', `/jobs/${bundle.id}/binaries?ref=unused.txt`, {
    body: note,
    headers: { 'x-content-sha256': sha256(note) },
  });
  t.is(kept.status, 201);
  const notes = path.join(fixturesDir, 'fhir', 'binaries');
  for (const file of await readdir(notes)) {
    const bytes = await readFile(path.join(notes, file));
    const uploaded = await w.api('POST', `/jobs/${bundle.id}/binaries?ref=${file}`, {
      body: bytes,
      headers: { 'x-content-sha256': sha256(bytes) },
    });
    t.is(uploaded.status, 201);
  }
  await validate(w, bundle.id);
  const done = await execute(w, bundle.id);
  t.not(done.state, 'executing');
  const imported = await clinicalCounts(knex);
  t.true(imported.documents! > 0);
  t.true((await count(w, 'migration_import_warning', { job_id: bundle.id })) > 0);
  const used = (await knex('documents_document').first('sha256')) as { sha256: string };

  const answer = await w.api('POST', `/jobs/${bundle.id}/purge`);
  t.is(answer.status, 200, answer.text);
  t.like(answer.body, { id: bundle.id, purgedBy: 'ada', purged: true });
  t.truthy((answer.body as { purgedAt: string | null }).purgedAt);
  await t.throwsAsync(stat(sourcePath(storage, bundle.id)), { code: 'ENOENT' });
  await t.throwsAsync(stat(blobPath(storage, sha256(note))), { code: 'ENOENT' });
  t.is(
    await mode(blobPath(storage, used.sha256)).then(() => 'kept'),
    'kept',
    "an imported document's bytes stay",
  );
  t.is(await count(w, 'migration_import_warning', { job_id: bundle.id }), 0);
  t.is(await count(w, 'migration_import_binary', { job_id: bundle.id }), 0);
  t.deepEqual(await clinicalCounts(knex), imported);
  const job = (await w.api('GET', `/jobs/${bundle.id}`)).body as { results: object; runs: unknown[] };
  t.deepEqual(job.results, done.results, 'what the job did stays for the record');
  t.is(job.runs.length, 1);
  const logged = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.job === bundle.id);
  t.like(logged.at(-1), {
    msg: `migration_import: purged job ${bundle.id}: its source, binaries and warnings are deleted`,
    by: 'ada',
  });

  // Again: nothing more to do, nothing logged.
  const again = await w.api('POST', `/jobs/${bundle.id}/purge`);
  t.is(again.status, 200);
  t.like(again.body, { purged: false, purgedBy: 'ada' });
  t.is(lines.filter((line) => line.includes('purged job')).length, 1);
  // The source is gone: nothing can read it again.
  for (const [route, options] of [
    ['validate', {}],
    ['execute', {}],
    ['preview', {}],
    ['binaries?ref=x', { body: note, headers: { 'x-content-sha256': sha256(note) } }],
  ] as const) {
    const refused = await w.api('POST', `/jobs/${bundle.id}/${route}`, options);
    t.is(refused.status, 409, route);
    t.like((refused.body as { error: object }).error, { code: 'job_purged' }, route);
  }
  t.is((await w.api('POST', '/jobs/999/purge')).status, 404);
});

test('a running job is not purged', async (t) => {
  const w = await world(t);
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  await w.knex('migration_import_job').where({ id: job.id }).update({ state: 'validating' });
  const refused = await w.api('POST', `/jobs/${job.id}/purge`);
  t.is(refused.status, 409);
  t.like((refused.body as { error: object }).error, { code: 'job_busy' });
  t.is((await stat(sourcePath(w.storage, job.id))).isFile(), true);
  t.is(await count(w, 'migration_import_job', { id: job.id, purged_at: null }), 1);
});

test('a binary whose upload a purge overtook is not kept: the store says so, and the job holds no binary', async (t) => {
  const w = await world(t);
  const job = await createJob(w, await fixtureBytes('fhir/bundle.json'), { format: 'fhir-json' });
  const first = Buffer.from('half of a scanned ');
  const second = Buffer.from('letter\n');
  const body = Readable.from(
    (async function* () {
      yield first;
      // The purge commits while the body is still on its way.
      await purgeJob(await purgeDeps(w), job.id, 'ada');
      yield second;
    })(),
  );
  const sdk = await importSdk(w);
  const stored = await storeBinary(
    sdk,
    sdk.jobActing(`migration_import:${job.id}`),
    body,
    {
      jobId: job.id,
      ref: 'letter.txt',
      sha256: sha256(Buffer.concat([first, second])),
      contentType: 'text/plain',
      createdBy: 'agent',
    },
    1024 * 1024,
  );
  t.is(stored, null);
  t.is(await count(w, 'migration_import_binary', { job_id: job.id }), 0);
});

test('a purge waits for an upload that found the same bytes stored, then keeps the file that upload now uses', async (t) => {
  const w = await world(t);
  const deps = await purgeDeps(w);
  const first = await createJob(w, await fixtureBytes('fhir/bundle.json'), { format: 'fhir-json' });
  const second = await createJob(w, await fixtureBytes('fhir/bundle.json'), { format: 'fhir-json' });
  const letter = Buffer.from('a referral letter both jobs hold\n');
  const uploaded = await w.api('POST', `/jobs/${first.id}/binaries?ref=letter.txt`, {
    body: letter,
    headers: { 'x-content-sha256': sha256(letter) },
  });
  t.is(uploaded.status, 201);
  const held = await w.knex('migration_import_binary').where({ job_id: first.id }).first();
  let purging: Promise<unknown> = Promise.resolve();
  // As the second job's upload does once it found the bytes stored: the lock, then its row.
  await withBlobLock(deps.acting, sha256(letter), async (trx) => {
    purging = purgeJob(deps, first.id, 'ada');
    await until(async () => {
      const { rows } = (await w.knex.raw(
        `select count(*)::int as waiting from pg_locks
         where locktype = 'advisory' and not granted
           and database = (select oid from pg_database where datname = current_database())`,
      )) as { rows: Array<{ waiting: number }> };
      return rows[0]!.waiting > 0;
    });
    await trx('migration_import_binary').insert({ ...held, id: undefined, job_id: second.id });
  });
  await purging;
  t.is(
    await mode(blobPath(w.storage, sha256(letter))).then(() => 'kept'),
    'kept',
    'the file the second job uses stays',
  );
  t.is(await count(w, 'migration_import_binary', { job_id: first.id }), 0);
});

test('a purge keeps the bytes of an imported document that was deleted softly, so an admin can restore it', async (t) => {
  const w = await world(t);
  const { knex, storage } = w;
  const bundle = await createJob(w, await fixtureBytes('fhir/bundle.json'), { format: 'fhir-json' });
  const notes = path.join(fixturesDir, 'fhir', 'binaries');
  for (const file of await readdir(notes)) {
    const bytes = await readFile(path.join(notes, file));
    const uploaded = await w.api('POST', `/jobs/${bundle.id}/binaries?ref=${file}`, {
      body: bytes,
      headers: { 'x-content-sha256': sha256(bytes) },
    });
    t.is(uploaded.status, 201);
  }
  await validate(w, bundle.id);
  await execute(w, bundle.id);
  const [user] = (await knex('base_user').select('id')) as Array<{ id: number }>;
  await knex('documents_document').update({ deleted_at: knex.fn.now(), deleted_by: user!.id });
  const deleted = (await knex('documents_document').select('sha256')) as Array<{ sha256: string }>;
  t.true(deleted.length > 0);

  const answer = await w.api('POST', `/jobs/${bundle.id}/purge`);
  t.is(answer.status, 200, answer.text);
  for (const { sha256: hash } of deleted)
    t.is(await mode(blobPath(storage, hash)).then(() => 'kept'), 'kept', 'a deleted row still uses its file');
});
