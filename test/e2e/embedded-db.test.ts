/**
 * The embedded database in the operator's runbook, end to end: each test gets an embedded server
 * of its own under a scratch storage folder (never storage/test's, which other tests share),
 * stopped and removed when it ends.
 */
import { appendFile, chmod, readdir, readFile, rm, stat } from 'node:fs/promises';
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

/** Every file under `storage` but the cluster's own data files (the rows written are data there). */
async function filesOutsideTheData(storage: string): Promise<string[]> {
  const data = path.join(storage, 'postgres', 'data');
  const entries = await readdir(storage, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.startsWith(`${data}${path.sep}`));
}

test('a 409 and a 422 leave none of the request’s values in any file under the storage folder', async (t) => {
  const { storage, env } = await embeddedStorage(t);
  await restart(env);
  const installed = await ward(['modules', 'install', 'appointments'], env);
  t.is(installed.code, 0, installed.stderr);
  await restart(env);
  const token = (await ward(['tokens', 'create', '--user', 'admin'], env)).stdout.trim();
  // As an earlier version's data folder, or an ALTER SYSTEM, might have them: the start overrides.
  t.is((await ward(['db', 'stop'], env)).code, 0);
  await appendFile(
    path.join(storage, 'postgres', 'data', 'postgresql.auto.conf'),
    "log_error_verbosity = 'verbose'\nlog_min_error_statement = 'error'\n",
  );
  const served = await serve(env);
  t.is(await psql(env, 'show log_error_verbosity; show log_min_error_statement;'), 'terse\npanic\n');
  t.teardown(() => served.stop());
  const post = async (pathname: string, json: object) =>
    (
      await fetch(`${served.base}/api/v1${pathname}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      })
    ).status;
  const first = { mrn: 'MRN-LOG-7731', familyName: 'Abernathy', givenName: 'Quilla' };
  t.is(await post('/patients/patients', first), 201);
  const duplicate = { mrn: first.mrn, familyName: 'Zwieback', givenName: 'Ottoline' };
  t.is(await post('/patients/patients', duplicate), 409);
  const list = (await (
    await fetch(`${served.base}/api/v1/patients/patients`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { items: Array<{ id: number }> };
  const backwards = {
    patientId: list.items[0]?.id,
    startAt: '2026-03-02T09:00:00Z',
    endAt: '2026-03-02T08:00:00Z',
    reason: 'Recurring migraine after the Kestrelmoor fall',
  };
  t.is(await post('/appointments/appointments', backwards), 422);
  t.is(await served.stop(), 0);
  // Stopping the server flushes its log files.
  t.is((await ward(['db', 'stop'], env)).code, 0);

  const files = await filesOutsideTheData(storage);
  const logs = files.filter((file) => file.includes(`${path.sep}postgres${path.sep}log${path.sep}`));
  t.true(logs.length > 0, `the server logs under postgres/log: ${files.join(', ')}`);
  const secrets = [first.mrn, duplicate.familyName, duplicate.givenName, backwards.reason, 'Kestrelmoor'];
  for (const file of files) {
    const text = await readFile(file, 'latin1');
    for (const secret of secrets) t.false(text.includes(secret), `${file} holds ${secret}`);
  }
  for (const file of logs) t.is((await stat(file)).mode & 0o777, 0o600, `${file} is private`);
});
