/**
 * Sign-in, sign-out, CSRF and the restart endpoint, against the real app and database.
 */
import test from 'ava';
import { createApiToken, revokeApiToken } from '../../src/auth/api-tokens.ts';
import { grantRole, revokeRole } from '../../src/auth/users.ts';
import {
  AUTH_MODULES,
  PASSWORD,
  addUser,
  call,
  installedDatabase,
  signIn,
  startApp,
} from '../helpers/app.ts';
import { ward } from '../helpers/cli.ts';

/**
 * A change to roles, tokens or users reaches a running app through a PostgreSQL notification on
 * its LISTEN connection, a moment after the commit: on a loaded machine the next request can still
 * start inside that moment. So a check after a change asks again until the answer changes (at
 * most 10 s), and then asserts the answer in full.
 */
async function once<T extends { status: number }>(request: () => Promise<T>, before: number): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await request();
    if (answer.status !== before || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const GRANTS = { roles: { intake_operator: ['intake.job.read', 'intake.job.write'] } };

test('sign-in sets an HttpOnly, SameSite=Strict session cookie and returns a session token and CSRF token', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const answer = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'Ada', password: PASSWORD },
  });
  t.is(answer.status, 200, answer.text);
  const body = answer.body as { token: string; csrfToken: string; expiresAt: string; user: object };
  t.regex(body.token, /^ward_s_[A-Za-z0-9_-]{43}$/);
  t.regex(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);
  t.deepEqual(body.user, { id: 1, username: 'ada' });
  const cookie = answer.headers.get('set-cookie') ?? '';
  t.true(cookie.startsWith(`ward_session=${body.token};`), cookie);
  t.regex(cookie, /; httponly/i);
  t.regex(cookie, /; samesite=strict/i);
  t.regex(cookie, /; path=\//);
  t.notRegex(cookie, /; secure/i, 'plain http: no Secure flag');
  t.is(answer.headers.get('cache-control'), 'no-store');
  const stored = await knex('base_session').select('id_hash', 'csrf_secret');
  t.is(stored.length, 1);
  t.is((stored[0].id_hash as Buffer).length, 32, 'only the 32-byte hash is stored');
  t.false((stored[0].id_hash as Buffer).toString('latin1').includes(body.token.slice(7)));
});

test('a wrong password, an unknown user and a password-less account get the same 401', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  await addUser(knex, 'robot', ['admin'], null);
  const { base } = await startApp(t, knex);
  const expected = {
    error: {
      code: 'invalid_credentials',
      message: 'invalid username or password',
      hint: 'check both and try again',
    },
  };
  for (const [username, password] of [
    ['ada', 'wrong password!'],
    ['nobody', PASSWORD],
    ['robot', PASSWORD],
  ] as const) {
    const answer = await call(base, 'POST', '/api/v1/auth/login', { json: { username, password } });
    t.is(answer.status, 401, username);
    t.deepEqual(answer.body, expected, username);
    t.is(answer.headers.get('set-cookie'), null, username);
  }
  t.is(
    await knex('base_session')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    0,
  );
});

test('sign-out ends the session: the cookie and the session token both stop working', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const cookieSession = await signIn(base, 'ada');
  t.is((await call(base, 'GET', '/api/v1/me', { cookie: cookieSession.cookie })).status, 200);
  const out = await call(base, 'POST', '/api/v1/auth/logout', {
    cookie: cookieSession.cookie,
    csrf: cookieSession.csrfToken,
  });
  t.is(out.status, 204, out.text);
  t.regex(out.headers.get('set-cookie') ?? '', /^ward_session=; path=\/; expires=Thu, 01 Jan 1970/);
  t.is((await call(base, 'GET', '/api/v1/me', { cookie: cookieSession.cookie })).status, 401);
  t.is((await call(base, 'GET', '/api/v1/me', { token: cookieSession.token })).status, 401);

  const bearerSession = await signIn(base, 'ada');
  t.is((await call(base, 'POST', '/api/v1/auth/logout', { token: bearerSession.token })).status, 204);
  t.is((await call(base, 'GET', '/api/v1/me', { token: bearerSession.token })).status, 401);
  t.is(
    await knex('base_session')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    0,
  );
});

test('CSRF: a cookie-authenticated POST needs X-CSRF-Token matching the session; bearer requests do not', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const session = await signIn(base, 'ada');
  const post = (options: { cookie?: string; csrf?: string; token?: string }) =>
    call(base, 'POST', '/api/v1/intake/jobs', { ...options, json: { title: 'x' } });

  const missing = await post({ cookie: session.cookie });
  t.is(missing.status, 403);
  t.deepEqual(missing.body, {
    error: {
      code: 'csrf_failed',
      message:
        'missing X-CSRF-Token header: a cookie-authenticated POST must send the CSRF token returned at sign-in',
      hint: 'send the csrfToken from sign-in (or GET /api/v1/me) in X-CSRF-Token, or use Authorization: Bearer',
    },
  });
  const wrong = await post({ cookie: session.cookie, csrf: 'x'.repeat(43) });
  t.is(wrong.status, 403);
  t.is(
    (wrong.body as { error: { message: string } }).error.message,
    "the X-CSRF-Token header does not match this session's CSRF token",
  );
  t.is(
    await knex('intake_job')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    0,
    'nothing was written',
  );

  t.is((await post({ cookie: session.cookie, csrf: session.csrfToken })).status, 201);
  t.is((await post({ token: session.token })).status, 201, 'bearer: no CSRF header needed');
  t.is(
    (await call(base, 'GET', '/api/v1/intake/jobs', { cookie: session.cookie })).status,
    200,
    'GET needs none',
  );
  const me = await call(base, 'GET', '/api/v1/me', { cookie: session.cookie });
  t.is(
    (me.body as { csrfToken: string }).csrfToken,
    session.csrfToken,
    '/me gives a reloaded page its CSRF token',
  );
  const bearerMe = await call(base, 'GET', '/api/v1/me', { token: session.token });
  t.false('csrfToken' in (bearerMe.body as object));
});

test('sign-out with an API token is refused (tokens are revoked with the CLI); the cookie never carries one', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'robot', ['admin'], null);
  const { base } = await startApp(t, knex);
  const { secret } = await createApiToken(knex, { userId: id, role: null, name: null, expiresAt: null });
  const planted = await call(base, 'POST', '/api/v1/intake/jobs', {
    cookie: `ward_session=${secret}`,
    json: { title: 'x' },
  });
  t.is(planted.status, 401, 'an API token in the session cookie would skip CSRF: refused');
  const answer = await call(base, 'POST', '/api/v1/auth/logout', { token: secret });
  t.is(answer.status, 400);
  t.is((answer.body as { error: { code: string } }).error.code, 'not_a_session');
  t.is((await call(base, 'GET', '/api/v1/me', { token: secret })).status, 200);
});

test('restart: an admin gets 202 and onRestart runs once the answer is out', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base, restarts } = await startApp(t, knex);
  const session = await signIn(base, 'ada');
  const answer = await call(base, 'POST', '/api/v1/modules/-/restart', { token: session.token });
  t.is(answer.status, 202, answer.text);
  t.is((answer.body as { status: string }).status, 'restarting');
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(restarts(), 1);
});

test('restart: anyone else gets 403 permission denied: base.module.restart, and nothing restarts', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'olga', ['intake_operator']);
  const { base, restarts } = await startApp(t, knex, { grants: GRANTS });
  const session = await signIn(base, 'olga');
  const answer = await call(base, 'POST', '/api/v1/modules/-/restart', { token: session.token });
  t.is(answer.status, 403);
  t.is(
    (answer.body as { error: { message: string } }).error.message,
    'permission denied: base.module.restart',
  );
  const anonymous = await call(base, 'POST', '/api/v1/modules/-/restart');
  t.is(anonymous.status, 401);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(restarts(), 0);
});

test('an open session loses a revoked role on its next request (SQL), without signing in again', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'olga', ['intake_operator']);
  const { base } = await startApp(t, knex, { grants: GRANTS });
  const session = await signIn(base, 'olga');
  t.is((await call(base, 'GET', '/api/v1/intake/jobs', { cookie: session.cookie })).status, 200);
  t.is(
    (await call(base, 'GET', '/api/v1/intake/jobs', { cookie: session.cookie })).status,
    200,
    'cached now',
  );
  await knex('base_user_role').del();
  const after = await once(() => call(base, 'GET', '/api/v1/intake/jobs', { cookie: session.cookie }), 200);
  t.is(after.status, 403);
  t.is((after.body as { error: { message: string } }).error.message, 'permission denied: intake.job.read');
  const me = await call(base, 'GET', '/api/v1/me', { cookie: session.cookie });
  t.deepEqual((me.body as { roles: string[]; permissions: string[] }).roles, []);
  t.deepEqual((me.body as { roles: string[]; permissions: string[] }).permissions, []);
});

test('`ward users revoke` from another process applies to an open session on its next request', async (t) => {
  const { knex, url } = await installedDatabase(t);
  await addUser(knex, 'olga', ['intake_operator']);
  const running = await startApp(t, knex, { grants: GRANTS });
  const session = await signIn(running.base, 'olga');
  t.is((await call(running.base, 'GET', '/api/v1/intake/jobs', { token: session.token })).status, 200);
  const revoked = await ward(['users', 'revoke', 'olga', 'intake_operator'], {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: AUTH_MODULES,
  });
  t.is(revoked.code, 0, revoked.stderr);
  const after = await once(
    () => call(running.base, 'GET', '/api/v1/intake/jobs', { token: session.token }),
    200,
  );
  t.is(after.status, 403);
  t.is((after.body as { error: { message: string } }).error.message, 'permission denied: intake.job.read');
});

test('`ward users disable` from another process shuts out an open session and a token on their next request', async (t) => {
  const { knex, url } = await installedDatabase(t);
  const id = await addUser(knex, 'olga', ['intake_operator']);
  const token = await createApiToken(knex, { userId: id, role: null, name: null, expiresAt: null });
  const running = await startApp(t, knex, { grants: GRANTS });
  const session = await signIn(running.base, 'olga');
  for (const credential of [session.token, token.secret])
    t.is((await call(running.base, 'GET', '/api/v1/intake/jobs', { token: credential })).status, 200);
  const disabled = await ward(['users', 'disable', 'olga'], {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: AUTH_MODULES,
  });
  t.is(disabled.code, 0, disabled.stderr);
  for (const credential of [session.token, token.secret])
    t.is(
      (await once(() => call(running.base, 'GET', '/api/v1/intake/jobs', { token: credential }), 200)).status,
      401,
    );
  const login = await call(running.base, 'POST', '/api/v1/auth/login', {
    json: { username: 'olga', password: PASSWORD },
  });
  t.is(login.status, 401, 'the right password no longer signs in');
});

test('a granted role applies to an open session on its next request', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'carl', []);
  const { base } = await startApp(t, knex, { grants: GRANTS });
  const session = await signIn(base, 'carl');
  t.is((await call(base, 'GET', '/api/v1/intake/jobs', { token: session.token })).status, 403);
  await grantRole(knex, id, 'intake_operator');
  t.is(
    (await once(() => call(base, 'GET', '/api/v1/intake/jobs', { token: session.token }), 403)).status,
    200,
  );
});

test('a revoked or expired API token is refused on its next request; a scoped token dies with its role', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'sync', ['admin', 'sync_agent'], null);
  const { base } = await startApp(t, knex, { grants: { roles: { sync_agent: ['intake.binary.write'] } } });
  await knex('intake_job').insert({ title: 'one' });
  const upload = (token: string) =>
    call(base, 'POST', '/api/v1/intake/jobs/1/binaries', {
      token,
      body: 'abc',
      headers: { 'content-type': 'application/octet-stream' },
    });

  const revocable = await createApiToken(knex, { userId: id, role: null, name: null, expiresAt: null });
  t.is((await upload(revocable.secret)).status, 201);
  await revokeApiToken(knex, revocable.id);
  t.is((await once(() => upload(revocable.secret), 201)).status, 401);

  const expired = await createApiToken(knex, {
    userId: id,
    role: null,
    name: null,
    expiresAt: new Date(Date.now() - 1000),
  });
  t.is((await upload(expired.secret)).status, 401);

  const scoped = await createApiToken(knex, { userId: id, role: 'sync_agent', name: null, expiresAt: null });
  t.is((await upload(scoped.secret)).status, 201);
  t.true(await revokeRole(knex, id, 'sync_agent'));
  const after = await once(() => upload(scoped.secret), 201);
  t.is(after.status, 403, 'the user is still an admin, but the token acted only as sync_agent');
  t.is(
    (after.body as { error: { message: string } }).error.message,
    'permission denied: intake.binary.write',
  );
});

test('last use is recorded for sessions and tokens', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'robot', ['admin'], null);
  const { base } = await startApp(t, knex);
  const { secret } = await createApiToken(knex, { userId: id, role: null, name: null, expiresAt: null });
  t.is((await call(base, 'GET', '/api/v1/me', { token: secret })).status, 200);
  for (let attempt = 0; attempt < 50; attempt++) {
    const row = await knex('base_api_token').first('last_used_at');
    if (row.last_used_at !== null) return t.pass();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.fail('last_used_at was never set');
});
