/**
 * migration_import in a real `ward backend`, as an operator runs it: modules installed by
 * `ward modules install` and a restart, accounts and tokens from `ward users` and `ward tokens`,
 * a grants file for the sync agent's role. A backend killed (SIGKILL) in the middle of an execute
 * leaves the job to the next backend, which resumes it to completion; uninstalling the module
 * backs up its tables and leaves the imported patients where they are.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { scratchDir, ward, type WardEnv } from '../../helpers/cli.ts';
import { crashAtBatch } from '../../helpers/crash.ts';
import { testDatabase } from '../../helpers/database.ts';
import { alive, restart, serve, type Served } from '../../helpers/serve.ts';
import { API, fixtureBytes, type JobBody } from './world.ts';

const GRANTS = { roles: { sync_agent: ['migration_import.binary.write'] } };

async function must(args: string[], env: WardEnv): Promise<string> {
  const run = await ward(args, env);
  if (run.code !== 0) throw new Error(`ward ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

async function installed(t: ExecutionContext, extra: WardEnv = {}) {
  const { url, knex } = await testDatabase(t);
  const storage = await scratchDir('ward-import-e2e-');
  const grants = path.join(storage, 'grants.json');
  await writeFile(grants, JSON.stringify(GRANTS));
  const env: WardEnv = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_GRANTS_FILE: grants, ...extra };
  await restart(env);
  await must(['modules', 'install', 'migration_import'], env);
  await restart(env);
  const admin = await must(['tokens', 'create', '--user', 'admin'], env);
  return { knex, storage, env, admin };
}

async function http(base: string, token: string, method: string, pathname: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${API}${pathname}`, {
    ...init,
    method,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createdJob(backend: Served, admin: string, format: string, file: string): Promise<number> {
  const created = await http(backend.base, admin, 'POST', `/jobs?format=${format}&source_system=oldclinic`, {
    body: await fixtureBytes(file),
  });
  return (created.body as JobBody).id;
}

async function validatedJob(backend: Served, admin: string): Promise<number> {
  const id = await createdJob(backend, admin, 'synthea-patients-csv', 'synthea/patients.csv');
  await http(backend.base, admin, 'POST', `/jobs/${id}/validate`);
  await waitFor('validation', async () => {
    const job = (await http(backend.base, admin, 'GET', `/jobs/${id}`)).body as JobBody;
    return job.state === 'validated' ? job : undefined;
  });
  return id;
}

const count = async (knex: Awaited<ReturnType<typeof installed>>['knex'], table: string) =>
  Number(((await knex(table).count({ n: '*' })) as Array<{ n: string }>)[0]!.n);

for (const point of ['middle', 'end'] as const) {
  test(`a backend killed at the ${point} of a batch: the next backend resumes the job to completion`, async (t) => {
    const { knex, env, admin } = await installed(t, {
      WARD_IMPORT_BATCH_SIZE: '10',
      WARD_IMPORT_LEASE_SECONDS: '1',
    });
    const first = await serve(env);
    const id = await validatedJob(first, admin);
    await first.stop();

    const doomed = await serve({ ...env, ...crashAtBatch(`3:${point}`) });
    t.is((await http(doomed.base, admin, 'POST', `/jobs/${id}/execute`)).status, 202);
    await waitFor('the SIGKILL', async () => (alive(doomed.pid) ? undefined : true));
    const left = await knex('migration_import_job').where({ id }).first();
    const committed = point === 'middle' ? 20 : 30;
    t.like(left, { state: 'executing', rows_done: committed });
    t.is(await count(knex, 'patients_patient'), committed);

    const next = await serve(env);
    t.teardown(() => next.stop());
    const done = await waitFor('the resumed run', async () => {
      const job = (await http(next.base, admin, 'GET', `/jobs/${id}`)).body as JobBody;
      return job.state === 'executing' ? undefined : job;
    });
    t.is(done.state, 'succeeded');
    t.deepEqual(done.progress, { done: 50, total: 50, percent: 100 });
    t.deepEqual(done.results.patient, { created: 50, updated: 0, skipped: 0, failed: 0 });
    t.is(await count(knex, 'patients_patient'), 50);
    t.is(await count(knex, 'migration_import_source_map'), 50);
    // The log line travels through a pipe: it may arrive after the API's answer.
    t.truthy(
      await waitFor('the log line', async () =>
        /resuming an interrupted job/.test(next.output()) ? true : undefined,
      ),
    );
  });
}

test('the sync agent token from `ward tokens create` uploads binaries and nothing else', async (t) => {
  const { env, admin } = await installed(t);
  await must(['users', 'create', 'agent', '--role', 'sync_agent'], env);
  const agent = await must(
    ['tokens', 'create', '--user', 'agent', '--role', 'sync_agent', '--name', 'site A'],
    env,
  );
  const backend = await serve(env);
  t.teardown(() => backend.stop());
  // A FHIR job: only those take binaries.
  const id = await createdJob(backend, admin, 'fhir-json', 'fhir/bundle.json');
  const note = Buffer.from('a scanned referral letter\n');
  const upload = await http(backend.base, agent, 'POST', `/jobs/${id}/binaries?ref=letter.txt`, {
    body: note,
    headers: { 'x-content-sha256': createHash('sha256').update(note).digest('hex') },
  });
  t.is(upload.status, 201);
  const refused: Array<[string, string, string]> = [
    ['GET', '/jobs', 'migration_import.job.read'],
    ['GET', `/jobs/${id}`, 'migration_import.job.read'],
    ['GET', `/jobs/${id}/warnings`, 'migration_import.job.read'],
    ['POST', `/jobs/${id}/preview`, 'migration_import.job.read'],
    ['POST', '/jobs?format=fhir-json&source_system=x', 'migration_import.job.write'],
    ['POST', `/jobs/${id}/validate`, 'migration_import.job.write'],
    ['POST', `/jobs/${id}/execute`, 'migration_import.job.execute'],
  ];
  for (const [method, pathname, permission] of refused) {
    const answer = await http(backend.base, agent, method, pathname);
    t.is(answer.status, 403, `${method} ${pathname}`);
    t.is((answer.body as { error: { message: string } }).error.message, `permission denied: ${permission}`);
  }
  const patients = await fetch(`${backend.base}/api/v1/patients/patients`, {
    headers: { authorization: `Bearer ${agent}` },
  });
  t.is(patients.status, 403);
});

test('uninstalling migration_import backs up its tables and leaves the imported patients in place', async (t) => {
  const { knex, env, storage, admin } = await installed(t);
  const backend = await serve(env);
  const id = await validatedJob(backend, admin);
  await http(backend.base, admin, 'POST', `/jobs/${id}/execute`);
  await waitFor('the import', async () => {
    const job = (await http(backend.base, admin, 'GET', `/jobs/${id}`)).body as JobBody;
    return job.state === 'succeeded' ? job : undefined;
  });
  await backend.stop();

  await must(['modules', 'uninstall', 'migration_import', '--force'], env);
  await restart(env);
  t.is((await knex('core_module').where({ name: 'migration_import' }).first('state')).state, 'uninstalled');
  for (const table of [
    'migration_import_job',
    'migration_import_warning',
    'migration_import_binary',
    'migration_import_source_map',
  ])
    t.false(await knex.schema.hasTable(table), table);
  t.is(await count(knex, 'patients_patient'), 50);
  const backups = (await readdir(path.join(storage, 'backups'))).filter((file) =>
    file.startsWith('module_migration_import_'),
  );
  t.is(backups.length, 1);
  const backup = await readFile(path.join(storage, 'backups', backups[0]!), 'utf8');
  t.regex(backup, /migration_import_job/);
  t.regex(backup, /migration_import_source_map/);
  t.true(backup.includes('fb165133-d04c-455d-9e6c-f09c5e5335e3'), 'the mapping rows are in the backup');
});
