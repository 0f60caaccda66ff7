/**
 * Sign-in throttling over HTTP, against the real app and database, on a fake clock: 429s with
 * Retry-After before any password is checked, per username and address, per username and per
 * client address; and 503 with Retry-After when too many sign-ins are being checked at once.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { admissions } from '../../src/auth/hash-limit.ts';
import { hashPassword } from '../../src/auth/password.ts';
import { postgresSignInThrottle } from '../../src/auth/throttle-store.ts';
import { createUser } from '../../src/auth/users.ts';
import type { AppDeps } from '../../src/api/app.ts';
import { PASSWORD, addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const WRONG = 'not the password';
const from = (address: string) => ({ 'x-forwarded-for': address });
const USER_HINT =
  'wait, then try again; an administrator can set a new password with `ward users set-password`';

async function throttledApp(t: ExecutionContext, overrides: Partial<AppDeps> = {}) {
  const { knex } = await installedDatabase(t);
  const clock = { now: Date.parse('2026-03-02T08:00:00Z') };
  const throttle = postgresSignInThrottle(knex, { now: () => clock.now });
  const { base } = await startApp(t, knex, { overrides: { signInThrottle: throttle, ...overrides } });
  const login = (username: string, password: string, headers: Record<string, string> = {}) =>
    call(base, 'POST', '/api/v1/auth/login', { json: { username, password }, headers });
  return { knex, clock, throttle, login, base };
}

test('after five wrong passwords from one address its sixth sign-in gets 429 with Retry-After, even with the right password, which is not checked; the owner elsewhere signs in', async (t) => {
  const { knex, clock, login } = await throttledApp(t, { trustProxy: true });
  // An outdated hash is rewritten whenever the right password is checked: that shows whether it was.
  const outdated = await hashPassword(PASSWORD, { ln: 10, r: 8, p: 1 });
  await createUser(knex, { username: 'ada', roles: ['admin'], passwordHash: outdated });
  await addUser(knex, 'grace', ['admin']);
  const storedHash = async () => (await knex('base_user').where({ username: 'ada' }).first()).password_hash;

  const guesser = from('203.0.113.66');
  for (let i = 1; i <= 5; i++) {
    const answer = await login(i % 2 === 0 ? 'ADA' : 'ada', WRONG, guesser);
    t.is(answer.status, 401, `attempt ${i}`);
    t.like(answer.body, { error: { code: 'invalid_credentials' } });
  }
  const refused = await login('ada', PASSWORD, guesser);
  t.is(refused.status, 429, refused.text);
  t.deepEqual(refused.body, {
    error: {
      code: 'too_many_sign_ins',
      message: 'too many failed sign-ins for this username from this address; try again in 1 s',
      hint: USER_HINT,
    },
  });
  t.is(refused.headers.get('retry-after'), '1');
  t.is(refused.headers.get('set-cookie'), null);
  t.is(await storedHash(), outdated, 'the password was not checked');
  t.is((await login('grace', PASSWORD, guesser)).status, 200, 'another username is unaffected');

  const owner = await login('ada', PASSWORD, from('192.0.2.10'));
  t.is(owner.status, 200, `the owner, at another address, is not locked out: ${owner.text}`);
  t.not(await storedHash(), outdated, 'there the password was checked (and re-hashed)');
  t.is((await login('ada', PASSWORD, guesser)).status, 429, "the owner's sign-in does not free the guesser");
  clock.now += 999;
  t.is((await login('ada', PASSWORD, guesser)).status, 429);
  clock.now += 1;
  t.is((await login('ada', PASSWORD, guesser)).status, 200, 'once the wait has passed');
});

test('a username guessed at from 100 addresses within the hour: each address may try once a minute, and the owner still signs in', async (t) => {
  const { knex, clock, throttle, login } = await throttledApp(t, { trustProxy: true });
  await addUser(knex, 'ada', ['admin']);
  for (let i = 0; i < 99; i++) t.true((await throttle.attempt('ada', `198.51.100.${i}`, null)).allowed);
  t.is((await login('ada', WRONG, from('203.0.113.66'))).status, 401, 'the 100th failure');

  const refused = await login('ada', PASSWORD, from('203.0.113.66'));
  t.is(refused.status, 429, refused.text);
  t.deepEqual(refused.body, {
    error: {
      code: 'too_many_sign_ins',
      message:
        'too many failed sign-ins for this username from all addresses together; each address may try once a minute; try again in 60 s',
      hint: 'wait, then try again; someone may be guessing this password: the log has their addresses',
    },
  });
  t.is(refused.headers.get('retry-after'), '60');
  t.is((await login('ada', PASSWORD, from('192.0.2.10'))).status, 200, 'the owner, from their address');
  clock.now += 60_000;
  t.is((await login('ada', PASSWORD, from('203.0.113.66'))).status, 200, 'a minute later');
});

test('with no place left to check a password within the wait, sign-in answers 503 with Retry-After, checking and counting nothing', async (t) => {
  const places = admissions(1, { waitMs: 0 });
  const { knex, throttle, login } = await throttledApp(t, { signInHashing: places });
  const outdated = await hashPassword(PASSWORD, { ln: 10, r: 8, p: 1 });
  await createUser(knex, { username: 'ada', roles: ['admin'], passwordHash: outdated });
  const held = await places.enter('192.0.2.1');
  for (let i = 0; i < 10; i++) {
    const busy = await login('ada', i === 0 ? PASSWORD : WRONG);
    t.is(busy.status, 503, busy.text);
    t.deepEqual(busy.body, {
      error: {
        code: 'sign_in_busy',
        message: 'too many sign-ins are being checked at once; try again in 1 s',
        hint: 'wait a second, then try again; if it keeps happening, someone may be flooding sign-in',
      },
    });
    t.is(busy.headers.get('retry-after'), '1');
    t.is(busy.headers.get('set-cookie'), null);
  }
  const stored = await knex('base_user').where({ username: 'ada' }).first();
  t.is(stored.password_hash, outdated, 'the password was not checked');
  held?.();
  t.is((await login('ada', PASSWORD)).status, 200, 'the place given back, sign-in works');
  for (let i = 0; i < 5; i++)
    t.true((await throttle.attempt('ada', '127.0.0.1', null)).allowed, 'the 503s counted as no failure');
});

test('a successful sign-in resets the count; the waits then double again from one second', async (t) => {
  const { knex, clock, login } = await throttledApp(t);
  await addUser(knex, 'ada', ['admin']);
  for (let i = 0; i < 5; i++) t.is((await login('ada', WRONG)).status, 401);
  clock.now += 1_000;
  t.is((await login('ada', WRONG)).status, 401, 'the sixth, after its second');
  const doubled = await login('ada', PASSWORD);
  t.is(doubled.status, 429);
  t.is(doubled.headers.get('retry-after'), '2');
  clock.now += 2_000;
  t.is((await login('ada', PASSWORD)).status, 200);

  for (let i = 0; i < 5; i++) t.is((await login('ada', WRONG)).status, 401, 'five free failures again');
  const refused = await login('ada', WRONG);
  t.is(refused.status, 429);
  t.is(refused.headers.get('retry-after'), '1');
});

test('parallel attempts cannot outrun the throttle: of ten wrong passwords sent at once, five are checked', async (t) => {
  // Ten places for the one address, so the admissions (at most two per address) turn none away.
  const { knex, login } = await throttledApp(t, { signInHashing: admissions(10, { perClient: 10 }) });
  await addUser(knex, 'ada', ['admin']);
  const answers = await Promise.all(Array.from({ length: 10 }, () => login('ada', WRONG)));
  t.deepEqual(
    answers.map((answer) => answer.status).sort(),
    [401, 401, 401, 401, 401, 429, 429, 429, 429, 429],
  );
});

test('100 failed sign-ins from one address within 15 minutes, across usernames, shut that address out', async (t) => {
  // Behind a trusted proxy, the address is the one X-Forwarded-For names.
  const { knex, throttle, login } = await throttledApp(t, { trustProxy: true });
  await addUser(knex, 'ada', ['admin']);
  const from = (address: string) => ({ 'x-forwarded-for': address });
  for (let i = 0; i < 99; i++) t.true((await throttle.attempt(`user${i}`, '203.0.113.7', null)).allowed);
  t.is((await login('nobody', WRONG, from('203.0.113.7'))).status, 401, 'the 100th');

  const refused = await login('ada', PASSWORD, from('203.0.113.7'));
  t.is(refused.status, 429, refused.text);
  t.deepEqual(refused.body, {
    error: {
      code: 'too_many_sign_ins',
      message: 'too many failed sign-ins from this address; try again in 900 s',
      hint: 'wait, then try again; if a device or script here retries a wrong password, stop it',
    },
  });
  t.is(refused.headers.get('retry-after'), '900');
  t.is((await login('ada', PASSWORD, from('203.0.113.8'))).status, 200, 'another address is unaffected');
});

test('behind the trusted proxy, entries the client puts before its real address do not change it', async (t) => {
  const { knex, throttle, login } = await throttledApp(t, { trustProxy: true });
  await addUser(knex, 'ada', ['admin']);
  for (let i = 0; i < 100; i++) t.true((await throttle.attempt(`user${i}`, '203.0.113.7', null)).allowed);
  // The proxy appends the address it saw; whatever precedes it came from the client.
  const spoofed = await login('ada', PASSWORD, { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
  t.is(spoofed.status, 429, spoofed.text);
});

test('without a trusted proxy, a forged X-Forwarded-For does not escape the address limit', async (t) => {
  const { knex, throttle, login } = await throttledApp(t);
  await addUser(knex, 'ada', ['admin']);
  // The test connects over IPv4 loopback; Node may report it IPv4-mapped, which counts the same.
  for (let i = 0; i < 100; i++) t.true((await throttle.attempt(`user${i}`, '127.0.0.1', null)).allowed);
  const refused = await login('ada', PASSWORD, { 'x-forwarded-for': '198.51.100.1' });
  t.is(refused.status, 429, refused.text);
  t.like(refused.body, {
    error: { message: 'too many failed sign-ins from this address; try again in 900 s' },
  });
});

test('the OpenAPI document describes the 429', async (t) => {
  const { knex } = await installedDatabase(t);
  const { base } = await startApp(t, knex);
  const doc = (await call(base, 'GET', '/api/v1/openapi.json')).body as {
    paths: Record<string, { post?: { summary?: string } }>;
    components: { responses: Record<string, { description: string }> };
  };
  t.regex(doc.components.responses.TooManyRequests?.description ?? '', /`too_many_sign_ins`.*Retry-After/);
  t.regex(doc.paths['/api/v1/auth/login']?.post?.summary ?? '', /429 TooManyRequests/);
});

const changePassword = (base: string, token: string, currentPassword: string) =>
  call(base, 'POST', '/api/v1/auth/password', {
    token,
    json: { currentPassword, newPassword: 'a passphrase of my own' },
  });

test('a password change checks the current password under the sign-in throttle: after five wrong ones the sixth gets 429, the right one included', async (t) => {
  const { knex, clock, base } = await throttledApp(t);
  await addUser(knex, 'ada', ['admin']);
  const { token } = await signIn(base, 'ada');
  const before = await knex('base_user').where({ username: 'ada' }).first('password_hash');
  for (let i = 0; i < 5; i++) t.is((await changePassword(base, token, WRONG)).status, 403);
  const throttled = await changePassword(base, token, PASSWORD);
  t.is(throttled.status, 429, throttled.text);
  t.is(throttled.headers.get('retry-after'), '1');
  t.like(throttled.body, { error: { code: 'too_many_sign_ins' } });
  t.deepEqual(await knex('base_user').where({ username: 'ada' }).first('password_hash'), before);
  clock.now += 1_000;
  t.is((await changePassword(base, token, PASSWORD)).status, 204, 'after the wait, the right password');
});

test('with no place left to hash, a password change answers 503 sign_in_busy at once and changes nothing', async (t) => {
  const places = admissions(1, { waitMs: 0 });
  const { knex, base } = await throttledApp(t, { signInHashing: places });
  await addUser(knex, 'ada', ['admin']);
  const { token } = await signIn(base, 'ada');
  const before = await knex('base_user').where({ username: 'ada' }).first('password_hash');
  const held = await places.enter('192.0.2.1');
  const busy = await changePassword(base, token, PASSWORD);
  t.is(busy.status, 503, busy.text);
  t.like(busy.body, { error: { code: 'sign_in_busy' } });
  t.is(busy.headers.get('retry-after'), '1');
  t.deepEqual(await knex('base_user').where({ username: 'ada' }).first('password_hash'), before);
  held?.();
  t.is((await changePassword(base, token, PASSWORD)).status, 204, 'the place given back, the change is made');
});
