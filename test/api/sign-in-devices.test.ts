/**
 * Trusted browsers over HTTP, against the real app and database, on a fake clock: a browser that
 * signed in successfully as a username keeps signing in as it from an address that someone else's
 * failures have shut, and its own failures are limited on their own.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { postgresSignInThrottle } from '../../src/auth/throttle-store.ts';
import { PASSWORD, addUser, call, installedDatabase, startApp, type Answer } from '../helpers/app.ts';

const WRONG = 'not the password';
const CLINIC = '203.0.113.7';

async function clinicApp(t: ExecutionContext) {
  const { knex } = await installedDatabase(t);
  const clock = { now: Date.parse('2026-03-02T08:00:00Z') };
  const throttle = postgresSignInThrottle(knex, { now: () => clock.now });
  const { base } = await startApp(t, knex, { overrides: { signInThrottle: throttle, trustProxy: true } });
  /** A sign-in from the clinic's address, with the browser's device cookie when it has one. */
  const login = (username: string, password: string, device?: string) =>
    call(base, 'POST', '/api/v1/auth/login', {
      json: { username, password },
      headers: { 'x-forwarded-for': CLINIC, ...(device === undefined ? {} : { cookie: device }) },
    });
  /** 100 failed sign-ins with throwaway usernames from the clinic's address: it is shut for 15 minutes. */
  const shut = async () => {
    for (let i = 0; i < 100; i++)
      t.true((await throttle.attempt(`throwaway${i}`, CLINIC, null)).allowed, `attempt ${i}`);
  };
  return { knex, clock, login, shut, base };
}

/** The device cookie an answer sets, ready for a Cookie header, and its attributes. */
function deviceCookie(answer: Answer): { cookie: string; attributes: string } {
  const set = answer.headers.getSetCookie().find((cookie) => cookie.startsWith('ward_device='));
  if (set === undefined) throw new Error(`no device cookie in ${answer.headers.getSetCookie().join(' | ')}`);
  const [cookie, ...attributes] = set.split('; ');
  return { cookie: cookie as string, attributes: attributes.join('; ').toLowerCase() };
}

test("after 100 failed sign-ins from the clinic's address, a user who signed in from this browser before still signs in from it; others there get 429", async (t) => {
  const { knex, login, shut } = await clinicApp(t);
  await addUser(knex, 'ada', ['admin']);
  await addUser(knex, 'grace', ['admin']);
  const first = await login('ada', PASSWORD);
  t.is(first.status, 200, first.text);
  const { cookie, attributes } = deviceCookie(first);
  t.regex(cookie, /^ward_device=ward_d_[A-Za-z0-9_-]{43}$/);
  t.regex(attributes, /path=\/api\/v1\/auth\//);
  t.regex(attributes, /httponly/);
  t.regex(attributes, /samesite=strict/);
  t.regex(attributes, /expires=/);

  await shut();
  const stranger = await login('ada', PASSWORD);
  t.is(stranger.status, 429, 'without the cookie, the right password from the address is refused');
  t.like(stranger.body, {
    error: { message: 'too many failed sign-ins from this address; try again in 900 s' },
  });
  const trusted = await login('ada', PASSWORD, cookie);
  t.is(trusted.status, 200, `with it, ada signs in: ${trusted.text}`);
  t.is(deviceCookie(trusted).cookie, cookie, 'the browser keeps its secret');
  t.is((await login('ADA', PASSWORD, cookie)).status, 200, 'usernames are case-insensitive');
  t.is((await login('grace', PASSWORD, cookie)).status, 429, "the cookie is ada's, not grace's");
  const forged = `ward_device=ward_d_${'A'.repeat(43)}`;
  t.is((await login('ada', PASSWORD, forged)).status, 429, 'a secret Ward did not give is no use');
});

test('a trusted browser gets five wrong passwords free, then is a client like any other until its wait has passed', async (t) => {
  const { knex, clock, login, shut } = await clinicApp(t);
  await addUser(knex, 'ada', ['admin']);
  const { cookie } = deviceCookie(await login('ada', PASSWORD));
  await shut();
  for (let i = 0; i < 5; i++) t.is((await login('ada', WRONG, cookie)).status, 401, `failure ${i + 1}`);
  const waiting = await login('ada', PASSWORD, cookie);
  t.is(waiting.status, 429, 'its own wait runs: the address limit applies to it');
  t.like(waiting.body, { error: { code: 'too_many_sign_ins' } });
  clock.now += 1_000;
  t.is((await login('ada', PASSWORD, cookie)).status, 200, 'once its wait of 1 s has passed');
  for (let i = 0; i < 5; i++)
    t.is((await login('ada', WRONG, cookie)).status, 401, 'the success reset its failures');
});

test('one browser shared by a clinic’s staff keeps one device secret, trusted for each user who signed in on it', async (t) => {
  const { knex, login, shut } = await clinicApp(t);
  await addUser(knex, 'ada', ['admin']);
  await addUser(knex, 'grace', ['admin']);
  const { cookie } = deviceCookie(await login('ada', PASSWORD));
  const grace = await login('grace', PASSWORD, cookie);
  t.is(grace.status, 200, grace.text);
  t.is(deviceCookie(grace).cookie, cookie, 'the secret stays, so ada is still trusted on it');
  await shut();
  t.is((await login('ada', PASSWORD, cookie)).status, 200);
  t.is((await login('grace', PASSWORD, cookie)).status, 200);
  const rows = await knex('core_sign_in_device').orderBy('username').pluck('username');
  t.deepEqual(rows, ['ada', 'grace'], 'the database keeps only the hash, per username');
});

test('a browser is trusted for 90 days after its last successful sign-in', async (t) => {
  const { knex, clock, login, shut } = await clinicApp(t);
  await addUser(knex, 'ada', ['admin']);
  const { cookie } = deviceCookie(await login('ada', PASSWORD));
  clock.now += 89 * 24 * 3_600_000;
  t.is((await login('ada', PASSWORD, cookie)).status, 200, 'renewed for 90 days');
  clock.now += 89 * 24 * 3_600_000;
  await shut();
  t.is((await login('ada', PASSWORD, cookie)).status, 200, '178 days after the first');
  clock.now += 91 * 24 * 3_600_000;
  await shut();
  t.is((await login('ada', PASSWORD, cookie)).status, 429, '91 days after the last');
});

test("a password change from a trusted browser is checked under that browser's own limit, and its success resets it", async (t) => {
  const { knex, clock, login, shut, base } = await clinicApp(t);
  await addUser(knex, 'ada', ['admin']);
  const first = await login('ada', PASSWORD);
  const { cookie } = deviceCookie(first);
  const { token } = first.body as { token: string };
  await shut();
  const change = (currentPassword: string) =>
    call(base, 'POST', '/api/v1/auth/password', {
      token,
      json: { currentPassword, newPassword: 'a passphrase of my own' },
      headers: { 'x-forwarded-for': '203.0.113.7', cookie },
    });
  for (let i = 0; i < 5; i++) t.is((await change(WRONG)).status, 403, `wrong password ${i + 1}`);
  t.is((await change(PASSWORD)).status, 429, "the browser's own wait runs, and the address is shut");
  clock.now += 1_000;
  const changed = await change(PASSWORD);
  t.is(changed.status, 204, changed.text);
  for (let i = 0; i < 5; i++)
    t.is((await login('ada', WRONG, cookie)).status, 401, 'the success reset its failures');
});
