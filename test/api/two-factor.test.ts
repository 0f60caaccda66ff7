/**
 * Two-factor sign-in over HTTP, with codes computed by otplib as an authenticator app would:
 * setting it up, the second sign-in step, single-use codes and recovery codes, the lock after wrong
 * codes, turning it off with the password, and a clinic that requires it.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { generate } from 'otplib';
import type { TwoFactorPolicy } from '../../src/auth/two-factor.ts';
import { PASSWORD, addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const notified = () => new Promise((resolve) => setTimeout(resolve, 50));

/** The code of the time step `steps` from now (the server takes one step either side). */
const codeAt = (secret: string, steps: number) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

async function app(t: Parameters<typeof installedDatabase>[0], policy: TwoFactorPolicy = 'off') {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const { base } = await startApp(t, knex, { overrides: { twoFactorPolicy: policy } });
  return { knex, base };
}

async function enrol(base: string, token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token });
  if (setup.status !== 200) throw new Error(setup.text);
  const { secret } = setup.body as { secret: string };
  const confirmed = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token,
    json: { code: await codeAt(secret, 0) },
  });
  if (confirmed.status !== 200) throw new Error(confirmed.text);
  return { secret, ...(confirmed.body as { recoveryCodes: string[] }) };
}

const login = (base: string, password = PASSWORD) =>
  call(base, 'POST', '/api/v1/auth/login', { json: { username: 'bob', password } });

const secondStep = (base: string, json: object) =>
  call(base, 'POST', '/api/v1/auth/login/second-factor', { json });

async function challenge(base: string): Promise<string> {
  const answer = await login(base);
  return (answer.body as { challenge: string }).challenge;
}

const totpRow = (knex: Knex) => knex('base_user_totp').first('confirmed_at', 'secret', 'failures');

test('setting up: a secret with its otpauth URI and QR code, a wrong code refused, a right one gives ten recovery codes once', async (t) => {
  const { knex, base } = await app(t);
  const { token } = await signIn(base, 'bob');
  t.like((await call(base, 'GET', '/api/v1/auth/two-factor', { token })).body, {
    enabled: false,
    required: false,
  });
  const setup = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token });
  t.is(setup.status, 200, setup.text);
  const { secret, otpauthUri, qrSvg } = setup.body as { secret: string; otpauthUri: string; qrSvg: string };
  t.regex(secret, /^[A-Z2-7]{26,}$/);
  t.regex(otpauthUri, /^otpauth:\/\/totp\/Ward:bob\?/);
  t.true(otpauthUri.includes(`secret=${secret}`));
  t.regex(qrSvg, /^<svg[^>]*>/);

  const before = await totpRow(knex);
  for (const code of ['000000', 'abcdef', '1234567']) {
    const wrong = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', { token, json: { code } });
    t.is(wrong.status, 422, wrong.text);
    t.like(wrong.body, { error: { code: 'wrong_code', message: 'the code is not right' } });
  }
  const empty = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', { token, json: {} });
  t.is(empty.status, 422, empty.text);
  t.deepEqual(await totpRow(knex), before, 'nothing changed');
  t.true('token' in ((await login(base)).body as object), 'a setup not confirmed asks for no code');

  const confirmed = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token,
    json: { code: await codeAt(secret, 0) },
  });
  t.is(confirmed.status, 200, confirmed.text);
  const { recoveryCodes } = confirmed.body as { recoveryCodes: string[] };
  t.is(recoveryCodes.length, 10);
  for (const code of recoveryCodes) t.regex(code, /^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
  t.is(new Set(recoveryCodes).size, 10);
  const stored = (await knex('base_recovery_code').pluck('code_hash')) as Buffer[];
  t.false(
    stored.some((hash) => recoveryCodes.some((code) => hash.toString().includes(code))),
    'stored hashed',
  );
  t.like((await call(base, 'GET', '/api/v1/auth/two-factor', { token })).body, {
    enabled: true,
    recoveryCodesLeft: 10,
  });
  const again = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token });
  t.is(again.status, 409, 'the secret is never shown again');
  t.like(again.body, { error: { code: 'two_factor_enabled' } });
});

test('sign-in asks for a code after the password; a wrong or reused code is refused, a fresh one signs in', async (t) => {
  const { base } = await app(t);
  const { secret } = await enrol(base, (await signIn(base, 'bob')).token);
  const first = await login(base);
  t.is(first.status, 200, first.text);
  t.like(first.body, { secondFactorRequired: true });
  t.false('token' in (first.body as object), 'no session for the password alone');
  t.is(first.headers.get('set-cookie'), null);
  const { challenge: id } = first.body as { challenge: string };

  const wrong = await secondStep(base, { challenge: id, code: '000000' });
  t.is(wrong.status, 401, wrong.text);
  t.like(wrong.body, { error: { code: 'wrong_code' } });
  const code = await codeAt(secret, 1);
  const right = await secondStep(base, { challenge: id, code });
  t.is(right.status, 200, right.text);
  const { token } = right.body as { token: string };
  t.is((await call(base, 'GET', '/api/v1/me', { token })).status, 200);
  t.regex(right.headers.get('set-cookie') ?? '', /ward_session=ward_s_/);

  const used = await secondStep(base, { challenge: id, code });
  t.is(used.status, 401, 'a challenge works once');
  t.like(used.body, { error: { code: 'challenge_expired' } });
  const replay = await secondStep(base, { challenge: await challenge(base), code });
  t.is(replay.status, 401, 'a code works once');
  t.like(replay.body, { error: { code: 'wrong_code' } });
});

test('a recovery code signs in once, typed in any case and without dashes', async (t) => {
  const { base } = await app(t);
  const { token } = await signIn(base, 'bob');
  const { recoveryCodes } = await enrol(base, token);
  const typed = (recoveryCodes[3] as string).toLowerCase().replaceAll('-', ' ');
  const used = await secondStep(base, { challenge: await challenge(base), recoveryCode: typed });
  t.is(used.status, 200, used.text);
  const again = await secondStep(base, {
    challenge: await challenge(base),
    recoveryCode: recoveryCodes[3] as string,
  });
  t.is(again.status, 401, again.text);
  t.like((await call(base, 'GET', '/api/v1/auth/two-factor', { token })).body, { recoveryCodesLeft: 9 });
});

test('five wrong codes in a row lock the second step, even for the right code', async (t) => {
  const { knex, base } = await app(t);
  const { secret } = await enrol(base, (await signIn(base, 'bob')).token);
  const id = await challenge(base);
  for (let attempt = 1; attempt < 5; attempt++)
    t.is((await secondStep(base, { challenge: id, code: '000000' })).status, 401);
  const locked = await secondStep(base, { challenge: id, code: '000000' });
  t.is(locked.status, 429, locked.text);
  t.like(locked.body, { error: { code: 'too_many_codes' } });
  t.regex(locked.headers.get('retry-after') ?? '', /^\d+$/);
  const right = await secondStep(base, { challenge: await challenge(base), code: await codeAt(secret, 1) });
  t.is(right.status, 429, right.text);
  t.is(
    await knex('base_session')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    1,
    'no new session',
  );
});

test('bad second-step bodies and unknown challenges are refused and change nothing', async (t) => {
  const { knex, base } = await app(t);
  const { secret } = await enrol(base, (await signIn(base, 'bob')).token);
  const before = await totpRow(knex);
  const id = await challenge(base);
  for (const json of [
    {},
    { challenge: id },
    { challenge: id, code: '1', recoveryCode: 'x' },
    { challenge: id, code: 5 },
  ]) {
    const bad = await secondStep(base, json);
    t.is(bad.status, 422, bad.text);
    t.like(bad.body, { error: { code: 'invalid_body' } });
  }
  const unknown = await secondStep(base, { challenge: 'not-a-challenge', code: await codeAt(secret, 1) });
  t.is(unknown.status, 401, unknown.text);
  t.like(unknown.body, { error: { code: 'challenge_expired' } });
  t.regex((unknown.body as { error: { hint: string } }).error.hint, /sign in again/);
  t.deepEqual(await totpRow(knex), before);
});

test('turning it off needs the password; then the password alone signs in', async (t) => {
  const { knex, base } = await app(t);
  const { token } = await signIn(base, 'bob');
  await enrol(base, token);
  const wrong = await call(base, 'POST', '/api/v1/auth/two-factor/disable', {
    token,
    json: { password: 'nope' },
  });
  t.is(wrong.status, 403, wrong.text);
  t.like(wrong.body, { error: { code: 'wrong_password' } });
  t.not((await totpRow(knex))?.confirmed_at, null);
  const off = await call(base, 'POST', '/api/v1/auth/two-factor/disable', {
    token,
    json: { password: PASSWORD },
  });
  t.is(off.status, 204, off.text);
  t.is(await totpRow(knex), undefined);
  t.is(await knex('base_recovery_code').first(), undefined);
  const plain = await login(base);
  t.true('token' in (plain.body as object), plain.text);
  const twice = await call(base, 'POST', '/api/v1/auth/two-factor/disable', {
    token,
    json: { password: PASSWORD },
  });
  t.is(twice.status, 409, twice.text);
});

test('WARD_REQUIRE_2FA=admins: an admin without it may only set it up; once confirmed, everything opens', async (t) => {
  const { knex, base } = await app(t, 'admins');
  await addUser(knex, 'carol', ['sync_agent']);
  const { token } = await signIn(base, 'bob');
  t.like((await call(base, 'GET', '/api/v1/me', { token })).body, { mustEnrolTwoFactor: true });
  const held = await call(base, 'GET', '/api/v1/modules/-/active', { token });
  t.is(held.status, 403, held.text);
  t.like(held.body, { error: { code: 'two_factor_enrolment_required' } });
  t.regex((held.body as { error: { hint: string } }).error.hint, /two-factor\/setup/);
  t.like((await call(base, 'GET', '/api/v1/auth/two-factor', { token })).body, { required: true });
  await enrol(base, token);
  await notified();
  t.like((await call(base, 'GET', '/api/v1/me', { token })).body, { mustEnrolTwoFactor: false });
  t.is((await call(base, 'GET', '/api/v1/modules/-/active', { token })).status, 200);
  const carol = await signIn(base, 'carol');
  t.like((await call(base, 'GET', '/api/v1/me', { token: carol.token })).body, { mustEnrolTwoFactor: false });
});
