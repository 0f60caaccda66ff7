/**
 * The embedded database in the operator's runbook, end to end: each test gets an embedded server
 * of its own under a scratch storage folder (never storage/test's, which other tests share),
 * stopped and removed when it ends.
 */
import { chmod, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { FIXTURES, parseJson, scratchDir, ward, type WardEnv } from '../helpers/cli.ts';
import { alive, restart, serve } from '../helpers/serve.ts';

async function embeddedStorage(t: ExecutionContext): Promise<{ storage: string; env: WardEnv }> {
  const storage = await scratchDir('ward-embedded-');
  // As root the server runs as the postgres user, which must be able to reach the storage folder.
  await chmod(storage, 0o755);
  const env = {
    WARD_STORAGE_DIR: storage,
    WARD_MODULE_PATHS: path.join(FIXTURES, 'modules', 'lifecycle-v1'),
  };
  t.teardown(async () => {
    await ward(['db', 'stop'], env);
    await rm(storage, { recursive: true, force: true });
  });
  return { storage, env };
}

/** Runs `sql` through `ward db psql` as a script that stops at the first error; returns its rows. */
async function psql(env: WardEnv, sql: string): Promise<string> {
  const run = await ward(['db', 'psql', '--', '-v', 'ON_ERROR_STOP=1', '-At'], env, { input: sql });
  if (run.code !== 0) throw new Error(`ward db psql exited ${run.code}:\n${run.stderr}`);
  return run.stdout;
}

async function scheduleAndRestart(env: WardEnv, verb: 'install' | 'uninstall'): Promise<void> {
  const scheduled = await ward(['modules', verb, 'lab'], env);
  if (scheduled.code !== 0) throw new Error(scheduled.stderr);
  await restart(env);
}

const LAB_DATA = `
  select 'result', id, test_id, patient_id, value from lab_result order by id;
  select 'test', id, code, name from lab_test order by id;
  select 'tracking', xml_id, record_id, noupdate from core_external_id where module_name = 'lab' order by xml_id;
`;

test('a backup written by uninstall goes back into the embedded database with `ward db psql -f`', async (t) => {
  const { storage, env } = await embeddedStorage(t);
  await restart(env);
  await scheduleAndRestart(env, 'install');
  await psql(
    env,
    `insert into patients_patient (mrn, family_name, given_name) values ('MRN-2', 'Ng', 'Al');
     insert into lab_result (test_id, patient_id, value)
       select lab_test.id, patients_patient.id, '7.1' from lab_test, patients_patient
       where lab_test.code = 'GLU' and patients_patient.mrn = 'MRN-2';
     update lab_test set name = 'Renamed by the clinic' where code = 'CUSTOM';`,
  );
  const before = await psql(env, LAB_DATA);
  t.regex(before, /^result\|\d+\|\d+\|\d+\|7\.1$/m);
  await scheduleAndRestart(env, 'uninstall');
  await scheduleAndRestart(env, 'install');
  t.is(await psql(env, 'select count(*) from lab_result;'), '0\n', 'the reinstall starts empty');

  const [backup] = await readdir(path.join(storage, 'backups'));
  const file = path.join(storage, 'backups', backup as string);
  const restored = await ward(['db', 'psql', '-v', 'ON_ERROR_STOP=1', '-q', '-f', file], env);
  t.is(restored.code, 0, restored.stderr);
  t.is(await psql(env, LAB_DATA), before, 'rows and seed tracking are as they were');
});

test('a backend whose embedded database is stopped starts it again and answers /health healthy, by itself', async (t) => {
  const { env } = await embeddedStorage(t);
  const served = await serve(env);
  t.teardown(() => served.stop());
  t.is((await fetch(`${served.base}/health`)).status, 200);

  const stopped = await ward(['db', 'stop'], env);
  t.is(stopped.stdout, 'Stopped the embedded PostgreSQL.\n', stopped.stderr);
  // pg_ctl has waited for the server to exit: only the backend can bring it back.
  while ((await fetch(`${served.base}/health`)).status !== 200) await sleep(200);
  // Logged once the watch's own connection succeeds, which may come after the first healthy answer.
  t.regex(
    await served.waitFor(/the database answers again; serving requests/),
    /the embedded PostgreSQL is not running \(stopped by `ward db stop`, or it crashed\); starting it again/,
  );
  t.true(alive(served.pid), 'the same backend process serves');
  t.like(parseJson(await ward(['db', 'status', '--json'], env)), { running: true });
  t.is(await served.stop(), 0, 'and stops gracefully');
});

test('a backend whose embedded database crashed starts it again and answers /health healthy, by itself', async (t) => {
  const { storage, env } = await embeddedStorage(t);
  const served = await serve(env);
  t.teardown(() => served.stop());
  t.is((await fetch(`${served.base}/health`)).status, 200);

  const pidFile = path.join(storage, 'postgres', 'data', 'postmaster.pid');
  const postmaster = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  process.kill(postmaster, 'SIGKILL');
  while (alive(postmaster)) await sleep(100);
  t.regex(
    await served.waitFor(/the database answers again; serving requests/),
    /the embedded PostgreSQL is not running .*; starting it again/,
  );
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.not(Number((await readFile(pidFile, 'utf8')).split('\n')[0]), postmaster, 'a new server runs');
  t.is(await served.stop(), 0);
});
