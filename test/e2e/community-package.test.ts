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

async function http(base: string, token: string, method: string, pathname: string, json?: unknown) {
  const response = await fetch(`${base}${API}${pathname}`, {
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
    ['frontend', 'hooks.js', 'manifest.json', 'migrations', 'package.json', 'routes.js', 'seeds'],
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
    await knex('vitals_log').pluck('event'),
    ['installed 1.0.0 with SDK 1.2.0'],
    'post_install ran, handed the sdk',
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
