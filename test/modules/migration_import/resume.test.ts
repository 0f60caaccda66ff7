/**
 * Jobs whose worker died, in-process: a job left `executing` (or `validating`) with a lapsed
 * lease is taken over by POST execute or by the sweeper, and resumes after its checkpoint; a job
 * whose worker is alive is refused with 409. The lease is one second here
 * (WARD_IMPORT_LEASE_SECONDS), so the sweeper looks every half second. The real thing, a backend
 * killed mid-batch, is in e2e.test.ts.
 */
import test from 'ava';
import { executeRun } from '../../../modules/migration_import/lib/jobs/execute-run.ts';
import type { JobRow } from '../../../modules/migration_import/lib/jobs/job-row.ts';
import { Lease, LostLease } from '../../../modules/migration_import/lib/jobs/lease.ts';
import {
  createJob,
  fixtureBytes,
  importSdk,
  settled,
  validate,
  world,
  type JobBody,
  type World,
} from './world.ts';

process.env.WARD_IMPORT_LEASE_SECONDS = '1';

/** A validated job, then made to look as a worker that died after `done` rows left it. */
async function abandoned(w: World, lease: 'live' | 'lapsed', done = 0): Promise<number> {
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  await validate(w, job.id);
  await w
    .knex('migration_import_job')
    .where({ id: job.id })
    .update({
      state: 'executing',
      worker_id: 'dead-host:1234:feed',
      rows_done: done,
      results: { patient: { created: done, updated: 0, skipped: 0, failed: 0 } },
      lease_expires_at: w.knex.raw(`now() ${lease === 'live' ? '+' : '-'} interval '1 hour'`),
    });
  return job.id;
}

test('execute on a job whose worker still holds its lease is refused with 409 job_busy', async (t) => {
  const w = await world(t);
  const id = await abandoned(w, 'live');
  const answer = await w.api('POST', `/jobs/${id}/execute`);
  t.is(answer.status, 409);
  const error = (answer.body as { error: { code: string; message: string } }).error;
  t.is(error.code, 'job_busy');
  t.regex(
    error.message,
    new RegExp(`^job ${id} is executing now \\(progress 0/50\\); its worker holds it until `),
  );
  t.is((await w.api('POST', `/jobs/${id}/validate`)).status, 409);
  await w.knex('migration_import_job').where({ id }).update({ state: 'succeeded', worker_id: null });
});

test('execute on a job whose worker died resumes after its checkpoint', async (t) => {
  const w = await world(t);
  const id = await abandoned(w, 'lapsed', 20);
  const answer = await w.api('POST', `/jobs/${id}/execute`);
  t.is(answer.status, 202);
  t.like(answer.body, { id, state: 'executing', resumed: true, progress: { done: 20, total: 50 } });
  const job = await settled(w, id);
  t.is(job.state, 'succeeded');
  t.deepEqual(job.progress, { done: 50, total: 50, percent: 100 });
  // The 20 rows before the checkpoint counted as done by the dead worker are not read again.
  t.deepEqual(job.results.patient, { created: 50, updated: 0, skipped: 0, failed: 0 });
  t.is(Number(((await w.knex('patients_patient').count({ n: '*' })) as Array<{ n: string }>)[0]!.n), 30);
});

test('the sweeper takes over runs whose worker died, without anyone asking', async (t) => {
  const w = await world(t);
  const executing = await abandoned(w, 'lapsed');
  const validating = (
    await createJob(w, await fixtureBytes('synthea/patients.csv'), { format: 'synthea-patients-csv' })
  ).id;
  await w
    .knex('migration_import_job')
    .where({ id: validating })
    .update({
      state: 'validating',
      worker_id: 'dead-host:1234:feed',
      lease_expires_at: w.knex.raw(`now() - interval '1 second'`),
    });
  const done: JobBody = await settled(w, executing, 30_000);
  t.is(done.state, 'succeeded');
  t.deepEqual(done.results.patient, { created: 50, updated: 0, skipped: 0, failed: 0 });
  t.is((await settled(w, validating, 30_000)).state, 'validated');
});

test('a worker that lost its lease writes nothing: its batch rolls back at the fenced checkpoint', async (t) => {
  const w = await world(t);
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  await validate(w, job.id);
  await w
    .knex('migration_import_job')
    .where({ id: job.id })
    .update({
      state: 'executing',
      worker_id: 'new-holder',
      lease_expires_at: w.knex.raw(`now() + interval '1 hour'`),
    });
  const row = (await w.knex('migration_import_job').where({ id: job.id }).first()) as JobRow;
  const stale = new Lease(w.knex, job.id, 'old-holder', 1000);
  await t.throwsAsync(
    executeRun({ knex: w.knex, sdk: await importSdk(w), storageDir: w.storage, batchSize: 10 }, row, stale),
    {
      instanceOf: LostLease,
    },
  );
  t.is(Number(((await w.knex('patients_patient').count({ n: '*' })) as Array<{ n: string }>)[0]!.n), 0);
  t.like(await w.knex('migration_import_job').where({ id: job.id }).first(), {
    worker_id: 'new-holder',
    rows_done: 0,
  });
  await w.knex('migration_import_job').where({ id: job.id }).update({ state: 'failed', worker_id: null });
});
