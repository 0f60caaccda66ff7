/**
 * `/api/v1/me` and `/api/v1/modules/-/active`: what the frontend loads, computed on the server from
 * current grants, with navigation filtered per caller.
 */
import test from 'ava';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const GRANTS = {
  roles: {
    intake_operator: ['intake.job.read', 'intake.job.write'],
    sync_agent: ['intake.binary.write'],
    auditor: ['intake.*'],
    root: ['*'],
  },
};

async function world(t: Parameters<typeof installedDatabase>[0]) {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  await addUser(knex, 'olga', ['intake_operator']);
  await addUser(knex, 'carl', []);
  await addUser(knex, 'aude', ['auditor']);
  await addUser(knex, 'rooty', ['root']);
  const syncId = await addUser(knex, 'sync', ['admin', 'sync_agent'], null);
  const { base } = await startApp(t, knex, { grants: GRANTS });
  const sync = await createApiToken(knex, {
    userId: syncId,
    role: 'sync_agent',
    name: 'agent',
    expiresAt: null,
  });
  const tokenOf = async (username: string) => (await signIn(base, username)).token;
  return { base, knex, sync: sync.secret, tokenOf };
}

test('/me lists the user, the roles the credential acts with and every permission they give', async (t) => {
  const { base, sync, tokenOf } = await world(t);
  const me = async (token: string) =>
    (await call(base, 'GET', '/api/v1/me', { token })).body as Record<string, unknown>;

  t.like(await me(await tokenOf('olga')), {
    user: { username: 'olga' },
    roles: ['intake_operator'],
    permissions: ['intake.job.read', 'intake.job.write'],
    credential: { kind: 'session', scope: null },
  });
  t.like(await me(await tokenOf('ada')), {
    roles: ['admin'],
    permissions: [
      'base.audit.read',
      'base.module.read',
      'base.module.restart',
      'base.user.manage',
      'base.user.read',
      'base.user.write',
      'intake.binary.write',
      'intake.job.execute',
      'intake.job.read',
      'intake.job.write',
    ],
  });
  t.like(await me(await tokenOf('carl')), { roles: [], permissions: [] });
  t.like(await me(await tokenOf('aude')), {
    permissions: ['intake.binary.write', 'intake.job.execute', 'intake.job.read', 'intake.job.write'],
  });
  const root = await me(await tokenOf('rooty'));
  t.true((root.permissions as string[]).includes('base.module.restart'), 'the grants file * is everything');
  t.like(await me(sync), {
    user: { username: 'sync' },
    roles: ['sync_agent'],
    permissions: ['intake.binary.write'],
    credential: { kind: 'token', scope: 'sync_agent', expiresAt: null },
  });
});

test('active modules: every installed module, navigation filtered to what the caller may see', async (t) => {
  const { base, sync, tokenOf } = await world(t);
  const active = async (token?: string) => call(base, 'GET', '/api/v1/modules/-/active', { token });
  const navigation = async (token: string) =>
    Object.fromEntries(
      (
        (await active(token)).body as {
          modules: Array<{ name: string; navigation: Array<{ label: string }> }>;
        }
      ).modules.map((module) => [module.name, module.navigation.map((entry) => entry.label)]),
    );
  const admin = (await active(await tokenOf('ada'))).body as { modules: object[] };
  t.deepEqual(admin.modules, [
    {
      name: 'base',
      version: '1.2.0',
      summary: 'Users, roles and permissions',
      navigation: [
        { label: 'Modules', path: '/modules', permission: 'base.module.read', order: 900 },
        { label: 'Staff', path: '/users', permission: 'base.user.manage', order: 950 },
        { label: 'Audit', path: '/audit', permission: 'base.audit.read', order: 960 },
      ],
      frontend: 'modules/base/frontend/index.js',
    },
    {
      name: 'intake',
      version: '1.0.0',
      summary:
        'Test fixture shaped like migration_import: jobs guarded by read, write, execute and binary permissions',
      navigation: [
        { label: 'Intake', path: '/intake', permission: 'intake.job.read', order: 500 },
        { label: 'Intake uploads', path: '/intake/uploads', permission: 'intake.binary.write', order: 500 },
      ],
      frontend: 'test/fixtures/modules/auth/intake/frontend/index.js',
    },
  ]);
  t.deepEqual(
    ((await active(await tokenOf('ada'))).body as { navigation: object[] }).navigation,
    [
      { module: 'intake', label: 'Intake', path: '/intake', permission: 'intake.job.read', order: 500 },
      {
        module: 'intake',
        label: 'Intake uploads',
        path: '/intake/uploads',
        permission: 'intake.binary.write',
        order: 500,
      },
      { module: 'base', label: 'Modules', path: '/modules', permission: 'base.module.read', order: 900 },
      { module: 'base', label: 'Staff', path: '/users', permission: 'base.user.manage', order: 950 },
      { module: 'base', label: 'Audit', path: '/audit', permission: 'base.audit.read', order: 960 },
    ],
    'the sidebar: an entry without an order before administration, whatever the module names',
  );
  t.deepEqual(await navigation(await tokenOf('olga')), { base: [], intake: ['Intake'] });
  t.deepEqual(await navigation(await tokenOf('carl')), { base: [], intake: [] });
  t.deepEqual(await navigation(sync), { base: [], intake: ['Intake uploads'] });
  const anonymous = await active();
  t.is(anonymous.status, 401, 'a bad or missing token fails the request (the sidebar then stays empty)');
});
