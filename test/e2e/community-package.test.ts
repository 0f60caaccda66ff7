/**
 * A community module as an operator gets one: the example package (test/fixtures/packages) packed
 * with `npm pack`, installed into a clinic's package root with `npm install` from the tarball,
 * then found, installed, served and uninstalled by the real `bin/ward`. The module is plain
 * JavaScript under node_modules and reaches Ward only through the SDK object it is handed.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { FIXTURES, parseJson, scratchDir, ward, type WardEnv } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { restart, serve } from '../helpers/serve.ts';

const PACKAGE = path.join(FIXTURES, 'packages', 'ward-module-vitals');
/** A folder module that depends on vitals and uses it through its public API alone. */
const DEPENDENT = path.join(FIXTURES, 'modules', 'vitals-dependent');
const API = '/api/v1/vitals';

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`npm ${args.join(' ')} exited ${code}:\n${stderr}`)),
    );
  });
}

/** A clinic's package root with the example module installed from its tarball, as `npm install` does. */
async function packageRoot(): Promise<string> {
  const dir = await scratchDir('ward-package-');
  const [packed] = JSON.parse(await npm(['pack', PACKAGE, '--pack-destination', dir, '--json'], dir)) as [
    { filename: string },
  ];
  const root = path.join(dir, 'clinic');
  await mkdir(root);
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'clinic', private: true }));
  await npm(['install', '--offline', '--no-audit', '--no-fund', path.join(dir, packed.filename)], root);
  return root;
}

async function must(args: string[], env: WardEnv): Promise<string> {
  const run = await ward(args, env);
  if (run.code !== 0) throw new Error(`ward ${args.join(' ')} exited ${run.code}:\n${run.stderr}`);
  return run.stdout.trim();
}

/** `pathname` under the vitals module's prefix. */
const http = (base: string, token: string, method: string, pathname: string, json?: unknown) =>
  request(base, token, method, `${API}${pathname}`, json);

async function request(base: string, token: string, method: string, pathname: string, json?: unknown) {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const count = async (knex: Knex, table: string) => Number((await knex(table).count({ n: '*' }).first())?.n);

test('an npm-packed community module installs, serves its guarded routes through the SDK, and uninstalls', async (t) => {
  const root = await packageRoot();
  const installedPackage = JSON.parse(
    await readFile(path.join(root, 'node_modules', 'ward-module-vitals', 'package.json'), 'utf8'),
  ) as { ward: unknown };
  t.deepEqual(installedPackage.ward, { module: true });
  t.deepEqual(
    (await readdir(path.join(root, 'node_modules', 'ward-module-vitals'))).sort(),
    [
      'api.js',
      'frontend',
      'hooks.js',
      'manifest.json',
      'migrations',
      'package.json',
      'routes.js',
      'seeds',
      'services.js',
    ],
    'only the files the package lists are published',
  );

  const { knex, url } = await testDatabase(t);
  const storage = await scratchDir('ward-storage-');
  const env: WardEnv = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_PACKAGE_ROOT: root };
  await restart(env);

  const listed = parseJson<Array<{ name: string; category: string; state: string; depends: string[] }>>(
    await ward(['modules', 'list', '--json'], env),
  );
  t.like(
    listed.find((entry) => entry.name === 'vitals'),
    { category: 'community', state: 'uninstalled', depends: ['patients'] },
  );

  await must(['modules', 'install', 'vitals'], env);
  const backend = await serve(env);
  t.teardown(() => backend.stop());
  t.like(await knex('core_module').where({ name: 'vitals' }).first(), {
    state: 'installed',
    version: '1.0.0',
    error_message: null,
  });
  t.deepEqual(
    await knex('core_module_table')
      .where({ module_name: 'vitals' })
      .orderBy('table_name')
      .pluck('table_name'),
    ['vitals_kind', 'vitals_log', 'vitals_reading'],
  );
  t.deepEqual(
    await knex('core_external_id').where({ module_name: 'vitals' }).orderBy('xml_id').pluck('xml_id'),
    ['kind_diastolic', 'kind_pulse', 'kind_spo2', 'kind_systolic', 'kind_temperature'],
  );
  t.deepEqual(
    await knex('vitals_log').orderBy('id').select('event', 'actor'),
    [
      { event: 'installed 1.0.0 with SDK 2.0.0', actor: 'system' },
      { event: 'service summaries started', actor: 'job:vitals:summaries' },
    ],
    'post_install ran, handed the sdk, as Ward itself; then the backend started the service',
  );

  // Not the first-run admin, whose password Ward chose: that account must choose its own first.
  await must(['users', 'create', 'chief', '--role', 'admin'], env);
  const admin = await must(['tokens', 'create', '--user', 'chief'], env);
  await must(['users', 'create', 'front_desk', '--role', 'receptionist'], env);
  const receptionist = await must(['tokens', 'create', '--user', 'front_desk'], env);

  const denied = await http(backend.base, receptionist, 'GET', '/kinds');
  t.is(denied.status, 403);
  t.deepEqual(denied.body, {
    error: {
      code: 'permission_denied',
      message: 'permission denied: vitals.reading.read',
      hint: 'ask an administrator for a role that grants vitals.reading.read (ward users grant <user> <role>)',
    },
  });
  const kinds = await http(backend.base, admin, 'GET', '/kinds');
  t.is(kinds.status, 200);
  t.is((kinds.body.items as unknown[]).length, 5);

  const [patient] = await knex('patients_patient')
    .insert({ mrn: 'V-1', family_name: 'Okafor', given_name: 'Ada' })
    .returning('id');
  const taken = ['2026-07-01T08:00:00Z', '2026-07-01T09:00:00Z'];
  for (const takenAt of taken) {
    const recorded = await http(backend.base, admin, 'POST', '/readings', {
      patientId: patient.id,
      kind: 'pulse',
      value: 72,
      takenAt,
    });
    t.is(recorded.status, 201);
    t.like(recorded.body, { patientId: patient.id, kind: 'pulse', value: 72, recordedBy: 'chief' });
  }
  const first = await http(backend.base, admin, 'GET', `/patients/${patient.id}/readings?limit=1`);
  t.is(first.status, 200);
  t.like((first.body.items as unknown[])[0], { takenAt: '2026-07-01T09:00:00.000Z' }, 'newest first');
  const next = await http(
    backend.base,
    admin,
    'GET',
    `/patients/${patient.id}/readings?limit=1&cursor=${first.body.nextCursor as string}`,
  );
  t.like(next.body, { items: [{ takenAt: '2026-07-01T08:00:00.000Z' }], nextCursor: null });

  t.deepEqual((await http(backend.base, admin, 'GET', '/readings/999')).body, {
    error: {
      code: 'not_found',
      message: 'there is no vital sign reading 999',
      hint: 'check the id; list them with GET on the collection',
    },
  });
  const badQuery = await http(backend.base, admin, 'GET', `/patients/${patient.id}/readings?kind=weight`);
  t.is(badQuery.status, 400);
  t.deepEqual(badQuery.body, {
    error: {
      code: 'invalid_query',
      message:
        'the query parameter kind names no kind "weight"; the kinds are pulse, systolic, diastolic, temperature, spo2',
      hint: 'fix that parameter and send the request again (GET /api/v1/openapi.json lists the routes)',
    },
  });
  const refused = await http(backend.base, admin, 'POST', '/readings', {
    patientId: patient.id,
    kind: 'weight',
    value: 70,
    takenAt: taken[0],
  });
  t.is(refused.status, 422);
  t.deepEqual(refused.body, {
    error: {
      code: 'invalid_body',
      message:
        'the request body is invalid at /kind: there is no kind "weight"; the kinds are pulse, systolic, diastolic, temperature, spo2',
      hint: 'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
    },
  });
  t.is(await count(knex, 'vitals_reading'), 2, 'the refused reading wrote nothing');
  await backend.stop();

  await must(['modules', 'uninstall', 'vitals'], env);
  await restart(env);
  t.like(await knex('core_module').where({ name: 'vitals' }).first(), {
    state: 'uninstalled',
    version: null,
  });
  for (const table of ['vitals_kind', 'vitals_reading', 'vitals_log'])
    t.false(await knex.schema.hasTable(table), table);
  t.deepEqual(await knex('core_external_id').where({ module_name: 'vitals' }).select(), []);
  t.is(await count(knex, 'patients_patient'), 1, 'the patients stay');
  const backups = await readdir(path.join(storage, 'backups'));
  t.is(backups.length, 1);
  t.regex(backups[0]!, /^module_vitals_\d{8}T\d{6}Z\.sql$/);
  const backup = await readFile(path.join(storage, 'backups', backups[0]!), 'utf8');
  t.regex(backup, /^-- table "[^"]*vitals_reading[^"]*" rows 2$/m);
  t.deepEqual(JSON.parse(await readFile(path.join(storage, 'vitals', 'uninstalled.json'), 'utf8')), {
    readings: 2,
  });
});

test("the example package's API serves a dependent, its job runs to the end, its service starts and stops with the backend", async (t) => {
  const root = await packageRoot();
  const { knex, url } = await testDatabase(t);
  const storage = await scratchDir('ward-storage-');
  const env: WardEnv = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: storage,
    WARD_PACKAGE_ROOT: root,
    WARD_MODULE_PATHS: DEPENDENT,
  };
  await restart(env);
  const info = await must(['modules', 'info', 'vitals'], env);
  t.regex(info, /patients\s.*\^1\.1\.0/, 'modules info shows the range vitals requires of patients');

  // Installing the dependent brings vitals (and patients) along, their ranges checked first.
  const plan = await must(['modules', 'install', 'triage'], env);
  t.regex(plan, /vitals/);
  const backend = await serve(env);
  t.teardown(() => backend.stop());
  t.deepEqual(
    await knex('core_module').whereIn('name', ['triage', 'vitals']).orderBy('name').select('name', 'state'),
    [
      { name: 'triage', state: 'installed' },
      { name: 'vitals', state: 'installed' },
    ],
  );
  await must(['users', 'create', 'chief', '--role', 'admin'], env);
  const token = await must(['tokens', 'create', '--user', 'chief'], env);
  const { id: userId } = (await knex('base_user').where({ username: 'chief' }).first('id')) as { id: number };
  const { id: tokenId } = (await knex('base_api_token').where({ user_id: userId }).first('id')) as {
    id: number;
  };
  const [patient] = (await knex('patients_patient')
    .insert({ mrn: 'T-1', family_name: 'Mensah', given_name: 'Kofi' })
    .returning('id')) as Array<{ id: number }>;

  // The dependent records through vitals' API: vitals' rules, the caller's transaction and actor.
  const recorded = await request(
    backend.base,
    token,
    'POST',
    `/api/v1/triage/patients/${patient!.id}/readings`,
    {
      kind: 'pulse',
      value: 64,
      takenAt: '2026-07-02T08:00:00Z',
    },
  );
  t.is(recorded.status, 201, JSON.stringify(recorded.body));
  t.like(recorded.body, { patientId: patient!.id, kind: 'pulse', value: 64, recordedBy: 'chief' });
  t.deepEqual(
    await knex('vitals_log')
      .where({ event: `recorded reading ${recorded.body.id as number}` })
      .pluck('actor'),
    [`user:${userId}:token:${tokenId}`],
  );
  const refused = await request(
    backend.base,
    token,
    'POST',
    `/api/v1/triage/patients/${patient!.id}/readings`,
    {
      kind: 'weight',
      value: 80,
      takenAt: '2026-07-02T08:00:00Z',
    },
  );
  t.is(refused.status, 422);
  t.is(await count(knex, 'vitals_reading'), 1, "vitals' rule refused the reading: nothing written");
  const board = await request(backend.base, token, 'GET', `/api/v1/triage/patients/${patient!.id}`);
  t.is(board.status, 200);
  t.like(board.body, { latest: [{ kind: 'pulse', value: 64 }] });

  // The summary job: enqueued by a route, run by the service's handler as job:<id>, to the end.
  const enqueued = await http(backend.base, token, 'POST', `/patients/${patient!.id}/summaries`);
  t.is(enqueued.status, 202);
  const jobId = enqueued.body.jobId as string;
  let state = '';
  while (state !== 'completed' && state !== 'failed') {
    const job = await http(backend.base, token, 'GET', `/summaries/${jobId}`);
    t.is(job.status, 200);
    state = job.body.state as string;
    if (state !== 'completed') await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.is(state, 'completed');
  t.deepEqual(await knex('vitals_log').where('event', 'like', 'summary of %').select('event', 'actor'), [
    { event: `summary of patient ${patient!.id}: 1 reading(s)`, actor: `job:${jobId}` },
  ]);
  t.is((await http(backend.base, token, 'GET', '/summaries/not-a-job')).status, 404);

  // Stopping the backend drains it and stops the service, which may still write.
  await backend.stop();
  t.deepEqual(await knex('vitals_log').where('event', 'like', 'service %').orderBy('id').pluck('event'), [
    'service summaries started',
    'service summaries stopped',
  ]);
});
