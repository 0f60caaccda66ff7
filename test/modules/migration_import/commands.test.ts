/**
 * migration_import's commands for operators, through `ward modules run migration_import`: purging
 * one job's raw data, recorded as purged by `cli:<user>`, and purging jobs older than a number of
 * days; bad arguments are refused before anything changes.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import test, { type ExecutionContext } from 'ava';
import { purgeJob } from '../../../modules/migration_import/lib/jobs/purge.ts';
import { sourcePath } from '../../../modules/migration_import/lib/jobs/source-file.ts';
import { ward } from '../../helpers/cli.ts';
import { importFixture, purgeDeps, world } from './world.ts';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

async function setUp(t: ExecutionContext) {
  const w = await world(t);
  const run = (...args: string[]) =>
    ward(['modules', 'run', 'migration_import', ...args], {
      DATABASE_URL: w.url,
      WARD_STORAGE_DIR: w.storage,
    });
  return { w, run };
}

test('purge <job-id> deletes the source, marks the job purged by the operator, and a second purge does nothing', async (t) => {
  const { w, run } = await setUp(t);
  const job = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  t.true(await exists(sourcePath(w.storage, job.id)));

  const first = await run('purge', String(job.id));
  t.is(first.code, 0, first.stderr);
  const operator = `cli:${os.userInfo().username}`;
  t.regex(
    first.stdout,
    new RegExp(
      `^Purged import job ${job.id}: its source, 0 binary file\\(s\\) and 0 warning\\(s\\) are deleted; the job stays, marked purged by ${operator}\\.\\n$`,
    ),
  );
  t.false(await exists(sourcePath(w.storage, job.id)));
  const row = await w.knex('migration_import_job').where({ id: job.id }).first();
  t.is(row.purged_by, operator);
  t.truthy(row.purged_at);
  t.is(Number((await w.knex('patients_patient').count({ n: '*' }))[0]!.n), 50, 'what it imported stays');

  const again = await run('purge', String(job.id));
  t.is(again.code, 0);
  t.is(again.stdout, `Import job ${job.id} was purged already (by ${operator}); nothing to do.\n`);
});

test('purge refuses a bad or unknown job id, changing nothing', async (t) => {
  const { w, run } = await setUp(t);
  const job = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  for (const bad of [[], ['0'], ['x1'], ['-3']]) {
    const refused = await run('purge', ...bad);
    t.is(refused.code, 2, `${bad.join(' ')}: ${refused.stderr}`);
    t.regex(refused.stderr, /job id/);
  }
  const unknown = await run('purge', '999999');
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /there is no import job 999999/);
  t.true(await exists(sourcePath(w.storage, job.id)), 'nothing was purged');
  t.is((await w.knex('migration_import_job').where({ id: job.id }).first()).purged_at, null);
});

test('purge-older <days> purges the jobs unchanged for that long, and only those', async (t) => {
  const { w, run } = await setUp(t);
  const old = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  const recent = await importFixture(w, 'synthea/encounters.csv', 'synthea-encounters-csv');
  await w
    .knex('migration_import_job')
    .where({ id: old.id })
    .update({ updated_at: w.knex.raw("now() - interval '10 days'") });

  const purged = await run('purge-older', '7');
  t.is(purged.code, 0, purged.stderr);
  t.is(purged.stdout, `Purged 1 import job(s) unchanged for 7 day(s): ${old.id}.\n`);
  t.false(await exists(sourcePath(w.storage, old.id)));
  t.true(await exists(sourcePath(w.storage, recent.id)));

  const none = await run('purge-older', '7');
  t.is(none.stdout, 'No import job unchanged for 7 day(s) holds raw data.\n');
  t.is((await run('purge-older', '0')).code, 2, 'at least one day');
});

test('a purge again removes a source file an interrupted purge left behind', async (t) => {
  const { w, run } = await setUp(t);
  const job = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  t.is((await run('purge', String(job.id))).code, 0);
  // As if the process had died between the purge's commit and the file's removal.
  const leftover = sourcePath(w.storage, job.id);
  await mkdir(path.dirname(leftover), { recursive: true });
  await writeFile(leftover, 'Id,SSN\n1,999-99-9999\n');
  const again = await run('purge', String(job.id));
  t.is(again.code, 0, again.stderr);
  t.false(await exists(leftover));
});

test('retention purges a job only if it is still unchanged for the age when the purge takes it', async (t) => {
  const { w } = await setUp(t);
  const job = await importFixture(w, 'synthea/patients.csv', 'synthea-patients-csv');
  const deps = await purgeDeps(w);
  t.is(await purgeJob(deps, job.id, 'retention', 7), undefined, 'changed today: kept');
  t.true(await exists(sourcePath(w.storage, job.id)));
  await w
    .knex('migration_import_job')
    .where({ id: job.id })
    .update({ updated_at: w.knex.raw("now() - interval '8 days'") });
  t.is((await purgeJob(deps, job.id, 'retention', 7))?.purged, true);
  t.false(await exists(sourcePath(w.storage, job.id)));
});
