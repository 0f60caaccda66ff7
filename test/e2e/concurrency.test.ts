import path from 'node:path';
import test from 'ava';
import { FIXTURES, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { restart, serve } from '../helpers/serve.ts';

test('four backends started at once on a pending plan: each step is done exactly once, all four serve', async (t) => {
  const { url, knex } = await testDatabase(t);
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_MODULE_PATHS: path.join(FIXTURES, 'modules', 'lifecycle-v1'),
  };
  await restart(env);
  const scheduled = await ward(['modules', 'install', 'lab'], env);
  t.is(scheduled.code, 0, scheduled.stderr);
  const backends = await Promise.all([1, 2, 3, 4].map(() => serve(env)));
  for (const backend of backends) {
    const health = await fetch(`${backend.base}/health`);
    t.is(health.status, 200);
  }
  await Promise.all(backends.map((backend) => backend.stop()));
  const done = (await knex('core_module_operation_log')
    .where({ status: 'done' })
    .whereNot({ step: 'schedule' })
    .select('module_name', 'step')) as Array<{ module_name: string; step: string }>;
  const counts = new Map<string, number>();
  for (const row of done)
    counts.set(`${row.module_name} ${row.step}`, (counts.get(`${row.module_name} ${row.step}`) ?? 0) + 1);
  t.is(counts.size, 12, 'base, patients and lab: four steps each');
  t.true(
    [...counts.values()].every((count) => count === 1),
    JSON.stringify([...counts]),
  );
  t.deepEqual(await knex('core_module').orderBy('name').pluck('state'), [
    'installed',
    'installed',
    'installed',
  ]);
});
