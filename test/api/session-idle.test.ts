/**
 * Idle expiry over HTTP: a session left without a request for the idle time answers 401 and its
 * cookie is cleared; /me tells the shell the idle time; a new sign-in works.
 */
import test from 'ava';
import { PASSWORD, addUser, call, installedDatabase, startApp } from '../helpers/app.ts';

const IDLE_MS = 1_000;

test('a session idle for WARD_SESSION_IDLE_MINUTES answers 401 unauthenticated; signing in again works', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const { base } = await startApp(t, knex, { overrides: { sessionIdleMs: IDLE_MS } });
  const login = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'bob', password: PASSWORD },
  });
  t.is(login.status, 200, login.text);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const me = await call(base, 'GET', '/api/v1/me', { cookie });
  t.is(me.status, 200, me.text);
  t.like(me.body, { credential: { kind: 'session', idleSeconds: IDLE_MS / 1000 } });
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 200));
  t.true(Date.now() - started > IDLE_MS);
  const after = await call(base, 'GET', '/api/v1/me', { cookie });
  t.is(after.status, 401, after.text);
  t.like(after.body, { error: { code: 'unauthenticated' } });
  t.regex(after.headers.get('set-cookie') ?? '', /ward_session=;/, 'the cookie is cleared');
  const again = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'bob', password: PASSWORD },
  });
  t.is(again.status, 200, again.text);
});
