/**
 * The first admin's password, which Ward chose and wrote to a file, must be replaced before the
 * admin does anything else: sign-in works and says so, GET /me and sign-out answer, every other
 * route refuses with 403 password_change_required until POST /api/v1/auth/password (or an
 * operator's `ward users set-password`) sets a password a person chose.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { ensureFirstAdmin } from '../../src/auth/first-admin.ts';
import { silentLogger } from '../../src/logger.ts';
import { PASSWORD, addUser, authEnv, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';
import { scratchDir, ward } from '../helpers/cli.ts';

/** A change made over the test's own connection reaches the app's LISTEN connection a moment later. */
const notified = () => new Promise((resolve) => setTimeout(resolve, 20));

const NEW_PASSWORD = 'a passphrase of my own';

/** What a refused request must leave as it was: users, their passwords, sessions and tokens. */
async function snapshot(knex: Knex): Promise<unknown> {
  const [users, sessions, tokens] = await Promise.all([
    knex('base_user').orderBy('id').select('id', 'password_hash', 'password_changed_at'),
    knex('base_session').orderBy('id_hash').select('id_hash', 'expires_at'),
    knex('base_api_token').orderBy('id').select('id', 'revoked_at'),
  ]);
  return { users, sessions, tokens };
}

async function firstRun(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  const storage = await scratchDir();
  await ensureFirstAdmin(knex, silentLogger, storage, () => undefined);
  const file = path.join(storage, 'first-admin-password');
  const password = (await readFile(file, 'utf8')).trim();
  const { base } = await startApp(t, knex, { overrides: { storageDir: storage } });
  return { url, knex, storage, file, password, base };
}

const errorOf = (body: unknown) => (body as { error: { code: string; message: string; hint: string } }).error;

const changePassword = (base: string, token: string, currentPassword: string, newPassword: string) =>
  call(base, 'POST', '/api/v1/auth/password', { token, json: { currentPassword, newPassword } });

test('the first admin signs in, is told to change the password, and every other route answers 403', async (t) => {
  const { knex, base, password } = await firstRun(t);
  const login = await call(base, 'POST', '/api/v1/auth/login', { json: { username: 'admin', password } });
  t.is(login.status, 200, login.text);
  t.like(login.body, { user: { username: 'admin' }, mustChangePassword: true });
  const { token } = login.body as { token: string };
  const me = await call(base, 'GET', '/api/v1/me', { token });
  t.is(me.status, 200, me.text);
  t.like(me.body, { user: { username: 'admin' }, roles: ['admin'], mustChangePassword: true });

  const admin = (await knex('base_user').where({ username: 'admin' }).first('id')) as { id: number };
  const apiToken = (await createApiToken(knex, { userId: admin.id, role: null, name: null, expiresAt: null }))
    .secret;
  const before = await snapshot(knex);
  for (const [method, route] of [
    ['GET', '/api/v1/modules/-/active'],
    ['GET', '/api/v1/intake/jobs'],
    ['POST', '/api/v1/modules/-/restart'],
  ] as const) {
    const answer = await call(base, method, route, { token });
    t.is(answer.status, 403, `${method} ${route}: ${answer.text}`);
    const error = errorOf(answer.body);
    t.is(error.code, 'password_change_required');
    t.regex(error.message, /the password of admin was chosen by Ward at first run/);
    t.regex(error.hint, /POST \/api\/v1\/auth\/password .*at least 12 characters/);
  }
  t.deepEqual(await snapshot(knex), before, 'nothing changed');
  const byToken = await call(base, 'GET', '/api/v1/modules/-/active', { token: apiToken });
  t.is(byToken.status, 200, `an operator's API token is not held back: ${byToken.text}`);
  t.is((await call(base, 'POST', '/api/v1/auth/logout', { token })).status, 204, 'sign-out still works');
});

test('a wrong current password, a short, blank, breached, guessable or control-character new one and the same one are refused, and the change stays required', async (t) => {
  const { knex, base, password, file } = await firstRun(t);
  const { token } = await signIn(base, 'admin', password);
  const before = await snapshot(knex);
  const wrong = await changePassword(base, token, 'not the password', NEW_PASSWORD);
  t.is(wrong.status, 403, wrong.text);
  t.like(errorOf(wrong.body), { code: 'wrong_password', message: 'the current password is not right' });
  t.regex(errorOf(wrong.body).hint, /ward users set-password/);
  const short = await changePassword(base, token, password, 'too short');
  t.is(short.status, 422, short.text);
  t.like(errorOf(short.body), { code: 'weak_password' });
  t.regex(errorOf(short.body).message, /at least 12 characters/);
  for (const [blank, message] of [
    [' '.repeat(12), 'the password is only spaces'],
    ['\0'.repeat(12), 'the password holds a control character (such as NUL, tab or escape)'],
  ] as const) {
    const refused = await changePassword(base, token, password, blank);
    t.is(refused.status, 422, refused.text);
    t.like(errorOf(refused.body), { code: 'weak_password', message });
  }
  for (const [guessable, message] of [
    ['123456789012', 'the password is on the list of passwords most often found in breaches'],
    ['passwordpassword', 'the password repeats a short part'],
  ] as const) {
    const refused = await changePassword(base, token, password, guessable);
    t.is(refused.status, 422, refused.text);
    t.like(errorOf(refused.body), { code: 'guessable_password', message });
  }
  const same = await changePassword(base, token, password, password);
  t.is(same.status, 422, same.text);
  t.like(errorOf(same.body), { code: 'same_password' });
  const missing = await call(base, 'POST', '/api/v1/auth/password', {
    token,
    json: { newPassword: NEW_PASSWORD },
  });
  t.is(missing.status, 422, missing.text);
  t.deepEqual(await snapshot(knex), before, 'nothing changed');
  t.is((await readFile(file, 'utf8')).trim(), password, 'the file stays');
  t.is((await call(base, 'GET', '/api/v1/modules/-/active', { token })).status, 403);
});

test('changing the password lifts the requirement at once, deletes the file, ends the other sessions and revokes the API tokens', async (t) => {
  const { knex, base, password, file } = await firstRun(t);
  const here = await signIn(base, 'admin', password);
  const elsewhere = await signIn(base, 'admin', password);
  const admin = (await knex('base_user').where({ username: 'admin' }).first('id')) as { id: number };
  const apiToken = (await createApiToken(knex, { userId: admin.id, role: null, name: null, expiresAt: null }))
    .secret;
  const changed = await changePassword(base, here.token, password, NEW_PASSWORD);
  t.is(changed.status, 204, changed.text);
  await t.throwsAsync(stat(file), { code: 'ENOENT' }, 'the password in the file is no use to anyone now');
  await notified();
  t.is((await call(base, 'GET', '/api/v1/modules/-/active', { token: here.token })).status, 200);
  t.like((await call(base, 'GET', '/api/v1/me', { token: here.token })).body, { mustChangePassword: false });
  t.is(
    (await call(base, 'GET', '/api/v1/me', { token: elsewhere.token })).status,
    401,
    'other session ended',
  );
  t.is((await call(base, 'GET', '/api/v1/me', { token: apiToken })).status, 401, 'the API token is revoked');
  const old = await call(base, 'POST', '/api/v1/auth/login', { json: { username: 'admin', password } });
  t.is(old.status, 401);
  const login = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'admin', password: NEW_PASSWORD },
  });
  t.is(login.status, 200, login.text);
  t.like(login.body, { mustChangePassword: false });
});

test('an operator setting the password with ward users set-password lifts the requirement too', async (t) => {
  const { url, base, password, storage } = await firstRun(t);
  const { token } = await signIn(base, 'admin', password);
  const run = await ward(['users', 'set-password', 'admin', '--password-stdin'], authEnv(url, storage), {
    input: NEW_PASSWORD,
  });
  t.is(run.code, 0, run.stderr);
  const login = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'admin', password: NEW_PASSWORD },
  });
  t.is(login.status, 200, login.text);
  t.like(login.body, { mustChangePassword: false });
  const fresh = (login.body as { token: string }).token;
  t.is((await call(base, 'GET', '/api/v1/modules/-/active', { token: fresh })).status, 200);
  t.is((await call(base, 'GET', '/api/v1/me', { token })).status, 401, 'the operator ended the old sessions');
});

test('users whose password a person set are never asked to change it, and may change it themselves', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const { base } = await startApp(t, knex);
  const login = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'ada', password: PASSWORD },
  });
  t.like(login.body, { mustChangePassword: false });
  const { token } = login.body as { token: string };
  t.is((await call(base, 'GET', '/api/v1/modules/-/active', { token })).status, 200);
  t.is((await changePassword(base, token, PASSWORD, NEW_PASSWORD)).status, 204);
  await notified();
  t.is((await call(base, 'GET', '/api/v1/modules/-/active', { token })).status, 200, 'this session stays');
  const again = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'ada', password: NEW_PASSWORD },
  });
  t.is(again.status, 200, again.text);
});
