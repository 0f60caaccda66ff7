/**
 * The permission matrix (issue 4): every route of the `intake` fixture module × every kind of
 * caller, with the exact status and, for refusals, the exact error. Callers: an admin, a role
 * nothing grants anything to, a role widened by the grants file, an API token scoped to a role
 * holding one permission (its user is also an admin), no credential, and bad tokens.
 */
import test, { type ExecutionContext } from 'ava';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { addUser, call, installedDatabase, signIn, startApp, type Answer } from '../helpers/app.ts';

const GRANTS = {
  roles: {
    intake_operator: ['intake.job.read', 'intake.job.write'],
    sync_agent: ['intake.binary.write'],
    clerk: [],
  },
};

interface Route {
  method: string;
  path: string;
  permission: string | null;
  /** Status when allowed. */
  ok: number;
  json?: unknown;
  body?: Buffer;
}

const ROUTES: Route[] = [
  { method: 'GET', path: '/api/v1/intake/jobs', permission: 'intake.job.read', ok: 200 },
  { method: 'GET', path: '/api/v1/intake/jobs/1', permission: 'intake.job.read', ok: 200 },
  {
    method: 'POST',
    path: '/api/v1/intake/jobs',
    permission: 'intake.job.write',
    ok: 201,
    json: { title: 'March import' },
  },
  { method: 'POST', path: '/api/v1/intake/jobs/1/execute', permission: 'intake.job.execute', ok: 200 },
  {
    method: 'POST',
    path: '/api/v1/intake/jobs/1/binaries',
    permission: 'intake.binary.write',
    ok: 201,
    body: Buffer.from('binary payload'),
  },
  { method: 'GET', path: '/api/v1/intake/whoami', permission: null, ok: 200 },
];

type Caller =
  'admin' | 'clerk' | 'operator' | 'sync token' | 'no credential' | 'bad token' | 'malformed header';

/** The permissions each caller holds; null: not authenticated at all. */
const HOLDS: Record<Caller, string[] | null> = {
  admin: ['intake.job.read', 'intake.job.write', 'intake.job.execute', 'intake.binary.write'],
  clerk: [],
  operator: ['intake.job.read', 'intake.job.write'],
  'sync token': ['intake.binary.write'],
  'no credential': null,
  'bad token': null,
  'malformed header': null,
};

async function world(t: ExecutionContext) {
  const { knex } = await installedDatabase(t);
  await knex('intake_job').insert({ title: 'first' });
  await addUser(knex, 'ada', ['admin']);
  await addUser(knex, 'carl', ['clerk']);
  await addUser(knex, 'olga', ['intake_operator']);
  const syncId = await addUser(knex, 'sync', ['admin', 'sync_agent'], null);
  const { base } = await startApp(t, knex, { grants: GRANTS });
  const token: Record<Caller, string | undefined> = {
    admin: (await signIn(base, 'ada')).token,
    clerk: (await signIn(base, 'carl')).token,
    operator: (await signIn(base, 'olga')).token,
    'sync token': (
      await createApiToken(knex, { userId: syncId, role: 'sync_agent', name: 'sync', expiresAt: null })
    ).secret,
    'no credential': undefined,
    'bad token': `ward_t_${'A'.repeat(43)}`,
    'malformed header': undefined,
  };
  return { base, token };
}

function send(base: string, route: Route, caller: Caller, token: string | undefined): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (caller === 'malformed header') headers.authorization = 'Basic YWRhOnB3';
  if (route.body !== undefined) headers['content-type'] = 'application/octet-stream';
  return call(base, route.method, route.path, { token, json: route.json, body: route.body, headers });
}

for (const caller of Object.keys(HOLDS) as Caller[]) {
  test(`permission matrix: ${caller}`, async (t) => {
    const { base, token } = await world(t);
    for (const route of ROUTES) {
      const answer = await send(base, route, caller, token[caller]);
      const label = `${caller}: ${route.method} ${route.path}`;
      const holds = HOLDS[caller];
      if (holds === null) {
        t.is(answer.status, 401, label);
        t.is((answer.body as { error: { code: string } }).error.code, 'unauthenticated', label);
        t.is(answer.headers.get('www-authenticate'), 'Bearer realm="ward"', label);
      } else if (route.permission === null || holds.includes(route.permission)) {
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
        t.true(answer.text.includes(`permission denied: ${route.permission}`), label);
      }
    }
  });
}

test('401 messages say what was wrong with the credential', async (t) => {
  const { base } = await world(t);
  const messages = async (options: Parameters<typeof call>[3]) =>
    ((await call(base, 'GET', '/api/v1/me', options)).body as { error: { message: string } }).error.message;
  t.is(await messages({}), 'this route needs a signed-in user, and the request has no credential');
  t.is(
    await messages({ token: `ward_t_${'A'.repeat(43)}` }),
    'the bearer token is invalid, expired or revoked',
  );
  t.is(await messages({ token: 'nonsense' }), 'the bearer token is invalid, expired or revoked');
  t.is(
    await messages({ cookie: `ward_session=ward_s_${'B'.repeat(43)}` }),
    'the session cookie is invalid, expired or revoked',
  );
  t.is(
    await messages({ headers: { authorization: 'Token abc' } }),
    'the Authorization header is not of the form "Bearer <token>"',
  );
});
