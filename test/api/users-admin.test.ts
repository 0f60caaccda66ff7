/**
 * Staff administration over HTTP: only holders of base.user.manage; creating a user with a
 * temporary password the person must replace; roles; disable and enable; a password reset; tokens;
 * and every bad input a 4xx that changes nothing.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { PASSWORD, addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const TEMPORARY = 'a temporary passphrase';

async function setup(t: Parameters<typeof installedDatabase>[0]) {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'alice', ['admin']);
  await addUser(knex, 'erin', ['receptionist']);
  const { base } = await startApp(t, knex, { grants: { roles: { receptionist: ['base.user.read'] } } });
  const { token } = await signIn(base, 'alice');
  return { knex, base, token };
}

async function snapshot(knex: Knex): Promise<unknown> {
  const [users, roles, sessions, tokens] = await Promise.all([
    knex('base_user').orderBy('id').select('id', 'username', 'password_hash', 'password_changed_at'),
    knex('base_user_role').orderBy(['user_id', 'role_id']).select('user_id', 'role_id'),
    knex('base_session').orderBy('id_hash').select('id_hash'),
    knex('base_api_token').orderBy('id').select('id', 'revoked_at'),
  ]);
  return { users, roles, sessions, tokens };
}

test('only base.user.manage holders may use the user routes: 403 permission denied for others', async (t) => {
  const { base } = await setup(t);
  const erin = await signIn(base, 'erin');
  for (const [method, route] of [
    ['GET', '/api/v1/users'],
    ['POST', '/api/v1/users'],
    ['POST', '/api/v1/users/alice/disable'],
    ['GET', '/api/v1/users/alice/tokens'],
  ] as const) {
    const answer = await call(base, method, route, {
      token: erin.token,
      ...(method === 'GET' ? {} : { json: {} }),
    });
    t.is(answer.status, 403, `${method} ${route}`);
    t.like(answer.body, {
      error: { code: 'permission_denied', message: 'permission denied: base.user.manage' },
    });
  }
});

test('a user created with a temporary password must choose their own at first sign-in', async (t) => {
  const { base, token } = await setup(t);
  const created = await call(base, 'POST', '/api/v1/users', {
    token,
    json: { username: 'bob', roles: ['receptionist'], temporaryPassword: TEMPORARY },
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { username: 'bob', roles: ['receptionist'], mustChangePassword: true });
  const bob = await signIn(base, 'bob', TEMPORARY);
  t.like((await call(base, 'GET', '/api/v1/me', { token: bob.token })).body, { mustChangePassword: true });
  const list = await call(base, 'GET', '/api/v1/users', { token });
  const listed = (list.body as { users: Array<{ username: string }> }).users.find(
    (u) => u.username === 'bob',
  );
  t.like(listed, { roles: ['receptionist'], mustChangePassword: true, disabled: false, twoFactor: false });
  t.true((list.body as { roles: string[] }).roles.includes('admin'));
});

test('roles are granted and removed; disable ends the way in and enable restores it; a reset is temporary', async (t) => {
  const { knex, base, token } = await setup(t);
  const erinSession = await signIn(base, 'erin');
  const erinId = ((await knex('base_user').where({ username: 'erin' }).first('id')) as { id: number }).id;
  const apiToken = await createApiToken(knex, { userId: erinId, role: null, name: 'ci', expiresAt: null });

  const grant = await call(base, 'POST', '/api/v1/users/erin/roles', { token, json: { role: 'admin' } });
  t.like(grant.body, { changed: true });
  t.like((await call(base, 'POST', '/api/v1/users/erin/roles', { token, json: { role: 'admin' } })).body, {
    changed: false,
  });
  t.like((await call(base, 'DELETE', '/api/v1/users/erin/roles/admin', { token })).body, { changed: true });

  const tokens = await call(base, 'GET', '/api/v1/users/erin/tokens', { token });
  t.like(tokens.body, { tokens: [{ id: apiToken.id, name: 'ci', status: 'active' }] });
  t.false(tokens.text.includes(apiToken.secret));
  const revoked = await call(base, 'POST', `/api/v1/users/erin/tokens/${apiToken.id}/revoke`, { token });
  t.like(revoked.body, { changed: true });
  t.is((await call(base, 'GET', '/api/v1/me', { token: apiToken.secret })).status, 401);

  const disabled = await call(base, 'POST', '/api/v1/users/erin/disable', { token });
  t.like(disabled.body, { changed: true, sessionsEnded: 1 });
  t.is((await call(base, 'GET', '/api/v1/me', { token: erinSession.token })).status, 401);
  t.is(
    (await call(base, 'POST', '/api/v1/auth/login', { json: { username: 'erin', password: PASSWORD } }))
      .status,
    401,
  );
  const resetDisabled = await call(base, 'POST', '/api/v1/users/erin/password', {
    token,
    json: { temporaryPassword: TEMPORARY },
  });
  t.is(resetDisabled.status, 409, resetDisabled.text);
  t.like((await call(base, 'POST', '/api/v1/users/erin/enable', { token })).body, { changed: true });
  await signIn(base, 'erin');

  const reset = await call(base, 'POST', '/api/v1/users/erin/password', {
    token,
    json: { temporaryPassword: TEMPORARY },
  });
  t.is(reset.status, 200, reset.text);
  t.like(reset.body, { mustChangePassword: true, sessionsEnded: 1 });
  const again = await signIn(base, 'erin', TEMPORARY);
  t.like((await call(base, 'GET', '/api/v1/me', { token: again.token })).body, { mustChangePassword: true });
});

test('bad input is a clear 4xx that changes nothing', async (t) => {
  const { knex, base, token } = await setup(t);
  const before = await snapshot(knex);
  const cases: Array<[string, string, object | undefined, number, string]> = [
    ['POST', '/api/v1/users', { username: 'Bad Name', temporaryPassword: TEMPORARY }, 422, 'invalid_body'],
    ['POST', '/api/v1/users', { username: 'bob' }, 422, 'invalid_body'],
    ['POST', '/api/v1/users', { username: 'bob', temporaryPassword: 'short' }, 422, 'weak_password'],
    [
      'POST',
      '/api/v1/users',
      { username: 'bob', temporaryPassword: 'passwordpassword' },
      422,
      'guessable_password',
    ],
    [
      'POST',
      '/api/v1/users',
      { username: 'bob', roles: ['adminn'], temporaryPassword: TEMPORARY },
      422,
      'unknown_role',
    ],
    ['POST', '/api/v1/users', { username: 'erin', temporaryPassword: TEMPORARY }, 409, 'user_exists'],
    ['POST', '/api/v1/users/nobody/disable', undefined, 404, 'unknown_user'],
    ['POST', '/api/v1/users/alice/disable', undefined, 409, 'own_account'],
    ['DELETE', '/api/v1/users/alice/roles/admin', undefined, 409, 'own_account'],
    ['POST', '/api/v1/users/erin/roles', { role: 'nope' }, 422, 'unknown_role'],
    ['POST', '/api/v1/users/erin/roles', { role: 'Bad Role' }, 422, 'invalid_body'],
    ['POST', '/api/v1/users/erin/password', { temporaryPassword: '123456789012' }, 422, 'guessable_password'],
    ['POST', '/api/v1/users/erin/tokens/999/revoke', undefined, 404, 'unknown_token'],
    ['POST', '/api/v1/users/erin/tokens/abc/revoke', undefined, 404, 'unknown_token'],
  ];
  for (const [method, route, json, status, code] of cases) {
    const answer = await call(base, method, route, { token, ...(json === undefined ? {} : { json }) });
    t.is(answer.status, status, `${method} ${route}: ${answer.text}`);
    const error = (answer.body as { error: { code: string; message: string; hint: string } }).error;
    t.is(error.code, code, `${method} ${route}`);
    t.true(error.message.length > 0 && error.hint.length > 0);
  }
  t.deepEqual(await snapshot(knex), before, 'nothing changed');
});
