/**
 * Retention by age: with WARD_IMPORT_RETENTION_DAYS set, the background sweeper purges the raw
 * data of jobs whose last change is older than that, as `retention`, and leaves younger ones.
 * It also removes the partial uploads of a process that is gone. The lease is short here so the
 * sweeper runs every half second.
 */
import { spawn } from 'node:child_process';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { namespaceTag, newPartialFile, partialName } from '../../../src/sdk/partial-files.ts';
import { privateSourcesDir, sourcePath } from '../../../modules/migration_import/lib/jobs/source-file.ts';
import { createJob, fixtureBytes, world } from './world.ts';

process.env.WARD_IMPORT_RETENTION_DAYS = '30';
process.env.WARD_IMPORT_LEASE_SECONDS = '1';

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

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

test('the sweeper removes the partial uploads a gone process left, and keeps the one this process writes', async (t) => {
  const w = await world(t);
  const sources = await privateSourcesDir(w.storage);
  const tmp = path.join(w.storage, 'documents', 'tmp');
  await mkdir(tmp, { recursive: true });
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  const tag = await namespaceTag();
  const leftSource = path.join(
    sources,
    partialName({ prefix: '.incoming-', suffix: '' }, tag, child.pid as number),
  );
  const leftBinary = path.join(tmp, partialName({ prefix: '', suffix: '.part' }, tag, child.pid as number));
  const live = await newPartialFile(sources, { prefix: '.incoming-', suffix: '' });
  t.teardown(() => live.release());
  for (const file of [leftSource, leftBinary, live.file]) await writeFile(file, 'partial');
  const deadline = Date.now() + 10_000;
  while ((await exists(leftSource)) || (await exists(leftBinary))) {
    if (Date.now() > deadline) return t.fail('the sweeper left the partial files of a gone process');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.true(await exists(live.file), 'the file a live upload writes stays');
});
