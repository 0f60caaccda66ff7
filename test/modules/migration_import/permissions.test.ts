/**
 * The permission matrix of migration_import: every route × every kind of caller, with the exact status,
 * and for refusals the exact `permission denied: <permission>` error. Callers: an admin (role
 * `admin`, granted `*` by the manifest), a role the grants file gives nothing, a clinic role
 * another module defines (receptionist), a viewer and a widened migration operator from the
 * grants file, the sync agent's token (scoped to a role holding only binary.write, its user an
 * admin too), and no credential.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import test, { type ExecutionContext } from 'ava';
import { createApiToken } from '../../../src/auth/api-tokens.ts';
import { addUser, call, signIn, type Answer } from '../../helpers/app.ts';
import { API, createJob, fixtureBytes, settled, validate, world } from './world.ts';

const GRANTS = {
  roles: {
    clerk: [],
    import_viewer: ['migration_import.job.read'],
    migration_operator: [
      'migration_import.job.read',
      'migration_import.job.write',
      'migration_import.job.execute',
    ],
    sync_agent: ['migration_import.binary.write'],
  },
};

const READ = 'migration_import.job.read';
const WRITE = 'migration_import.job.write';
const EXECUTE = 'migration_import.job.execute';
const BINARY = 'migration_import.binary.write';
const PURGE = 'migration_import.job.purge';

const NOTE = Buffer.from('Clinical note, scanned.\n');

interface Route {
  method: string;
  path: string;
  permission: string;
  ok: number;
  body?: Buffer;
  headers?: Record<string, string>;
}

/**
 * Job 1 (CSV) is validated before the calls and job 2 (FHIR, whose documents may refer to files)
 * created; job 3 is the one the caller's POST /jobs creates.
 */
const ROUTES = (csv: Buffer): Route[] => [
  { method: 'GET', path: '/jobs', permission: READ, ok: 200 },
  { method: 'GET', path: '/jobs/1', permission: READ, ok: 200 },
  { method: 'GET', path: '/jobs/1/warnings', permission: READ, ok: 200 },
  { method: 'POST', path: '/jobs/1/preview', permission: READ, ok: 200 },
  {
    method: 'POST',
    path: '/jobs?format=synthea-patients-csv&source_system=oldclinic',
    permission: WRITE,
    ok: 201,
    body: csv,
    headers: { 'content-type': 'text/csv' },
  },
  { method: 'POST', path: '/jobs/3/validate', permission: WRITE, ok: 202 },
  { method: 'POST', path: '/jobs/1/execute', permission: EXECUTE, ok: 202 },
  {
    method: 'POST',
    path: '/jobs/2/binaries?ref=note-1.txt',
    permission: BINARY,
    ok: 201,
    body: NOTE,
    headers: {
      'content-type': 'text/plain',
      'x-content-sha256': createHash('sha256').update(NOTE).digest('hex'),
    },
  },
  { method: 'POST', path: '/jobs/2/purge', permission: PURGE, ok: 200 },
];

type Caller =
  | 'admin'
  | 'clerk'
  | 'receptionist'
  | 'import viewer'
  | 'migration operator'
  | 'sync agent token'
  | 'no credential';

const HOLDS: Record<Caller, string[] | null> = {
  admin: [READ, WRITE, EXECUTE, BINARY, PURGE],
  clerk: [],
  receptionist: [],
  'import viewer': [READ],
  'migration operator': [READ, WRITE, EXECUTE],
  'sync agent token': [BINARY],
  'no credential': null,
};

async function setting(t: ExecutionContext) {
  const w = await world(t, { grants: GRANTS });
  const { knex, base, admin } = w;
  await addUser(knex, 'carl', ['clerk']);
  await addUser(knex, 'rita', ['receptionist']);
  await addUser(knex, 'vera', ['import_viewer']);
  await addUser(knex, 'otto', ['migration_operator']);
  const agentId = await addUser(knex, 'agent', ['admin', 'sync_agent'], null);
  const csv = await fixtureBytes('synthea/patients.csv');
  await validate(w, (await createJob(w, csv, { format: 'synthea-patients-csv' })).id);
  await createJob(w, JSON.stringify({ resourceType: 'Patient', id: 'p-1' }), { format: 'fhir-ndjson' });
  const token: Record<Caller, string | undefined> = {
    admin,
    clerk: (await signIn(base, 'carl')).token,
    receptionist: (await signIn(base, 'rita')).token,
    'import viewer': (await signIn(base, 'vera')).token,
    'migration operator': (await signIn(base, 'otto')).token,
    'sync agent token': (
      await createApiToken(knex, { userId: agentId, role: 'sync_agent', name: 'site A', expiresAt: null })
    ).secret,
    'no credential': undefined,
  };
  return { w, csv, token };
}

for (const caller of Object.keys(HOLDS) as Caller[]) {
  test(`every route as ${caller}`, async (t) => {
    const { w, csv, token } = await setting(t);
    for (const route of ROUTES(csv)) {
      const answer: Answer = await call(w.base, route.method, `${API}${route.path}`, {
        token: token[caller],
        body: route.body,
        headers: route.headers,
      });
      const label = `${caller}: ${route.method} ${route.path}`;
      const holds = HOLDS[caller];
      if (holds === null) {
        t.is(answer.status, 401, label);
        t.is((answer.body as { error: { code: string } }).error.code, 'unauthenticated', label);
      } else if (holds.includes(route.permission)) {
        t.is(answer.status, route.ok, `${label}: ${answer.text}`);
      } else {
        t.is(answer.status, 403, label);
        t.deepEqual(
          answer.body,
          {
            error: {
              code: 'permission_denied',
              message: `permission denied: ${route.permission}`,
              hint: `ask an administrator for a role that grants ${route.permission} (ward users grant <user> <role>)`,
            },
          },
          label,
        );
      }
    }
    // Nothing may still run when the test's database goes away.
    for (const id of [1, 2]) if ((await w.api('GET', `/jobs/${id}`)).status === 200) await settled(w, id);
  });
}

test('a 403 changes nothing: the refused create, validate and execute leave no job, no run and no patient', async (t) => {
  const { w, csv, token } = await setting(t);
  const viewer = token['import viewer'];
  await call(w.base, 'POST', `${API}/jobs?format=synthea-patients-csv&source_system=x`, {
    token: viewer,
    body: csv,
  });
  await call(w.base, 'POST', `${API}/jobs/1/execute`, { token: token['sync agent token'] });
  t.is(((await w.api('GET', '/jobs')).body as { items: unknown[] }).items.length, 2);
  t.is(((await w.api('GET', '/jobs/1')).body as { state: string }).state, 'validated');
  t.is(Number(((await w.knex('patients_patient').count({ n: '*' })) as Array<{ n: string }>)[0]!.n), 0);
});

test('the navigation entry is shown only to callers holding migration_import.job.read', async (t) => {
  const { w, token } = await setting(t);
  const entries = async (caller: Caller) => {
    const answer = await call(w.base, 'GET', '/api/v1/modules/-/active', { token: token[caller] });
    const modules = (answer.body as { modules: Array<{ name: string; navigation: Array<{ path: string }> }> })
      .modules;
    return (
      modules.find((module) => module.name === 'migration_import')?.navigation.map((entry) => entry.path) ??
      []
    );
  };
  t.deepEqual(await entries('admin'), ['/migration_import']);
  t.deepEqual(await entries('import viewer'), ['/migration_import']);
  t.deepEqual(await entries('receptionist'), []);
  t.deepEqual(await entries('sync agent token'), []);
});

test('the manifest grants * to admin only, with exactly the five permissions', async (t) => {
  const manifest = JSON.parse(
    await readFile(new URL('../../../modules/migration_import/manifest.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  t.deepEqual(manifest.permissions, [READ, WRITE, EXECUTE, BINARY, PURGE]);
  t.deepEqual(manifest.role_permissions, { admin: ['*'] });
  t.deepEqual(manifest.depends, ['patients', 'appointments', 'documents']);
  t.deepEqual(manifest.navigation, [
    { label: 'Data import', path: '/migration_import', permission: READ, order: 800 },
  ]);
  t.false(manifest.removable);
});
