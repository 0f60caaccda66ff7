/**
 * Retention by age: with WARD_IMPORT_RETENTION_DAYS set, the background sweeper purges the raw
 * data of jobs whose last change is older than that, as `retention`, and leaves younger ones.
 * The lease is short here so the sweeper runs every half second.
 */
import { stat } from 'node:fs/promises';
import test from 'ava';
import { sourcePath } from '../../../modules/migration_import/lib/jobs/source-file.ts';
import { createJob, fixtureBytes, world } from './world.ts';

process.env.WARD_IMPORT_RETENTION_DAYS = '30';
process.env.WARD_IMPORT_LEASE_SECONDS = '1';

test('the sweeper purges jobs older than the retention, as retention, and keeps younger ones', async (t) => {
  const w = await world(t);
  const csv = await fixtureBytes('synthea/patients.csv');
  const old = await createJob(w, csv, { format: 'synthea-patients-csv' });
  const young = await createJob(w, csv, { format: 'synthea-patients-csv' });
  await w
    .knex('migration_import_job')
    .where({ id: old.id })
    .update({ updated_at: w.knex.raw(`now() - interval '31 days'`) });
  const deadline = Date.now() + 10_000;
  let job: { purgedBy: string | null } = { purgedBy: null };
  while (job.purgedBy === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    job = (await w.api('GET', `/jobs/${old.id}`)).body as typeof job;
  }
  t.is(job.purgedBy, 'retention');
  // The purge commits its marking first and removes the file just after: wait for that.
  const source = sourcePath(w.storage, old.id);
  while (Date.now() < deadline && (await stat(source).catch(() => null)) !== null)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await t.throwsAsync(stat(source), { code: 'ENOENT' });
  t.like((await w.api('GET', `/jobs/${young.id}`)).body, { purgedBy: null, purgedAt: null });
  t.true((await stat(sourcePath(w.storage, young.id))).isFile());
});
