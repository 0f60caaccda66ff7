/**
 * Two-factor secrets are sealed at rest with SECRET_KEY: the database holds no secret an
 * authenticator could be set up from, sign-in with a code works as before, and a backend with
 * another key or none refuses the code step with an error that says so (recovery codes, kept as
 * hashes, still sign in).
 */
import test from 'ava';
import type { Knex } from 'knex';
import { generate, generateSecret, verify } from 'otplib';
import { isSealed, sealingKey, unseal } from '../../src/auth/secret-seal.ts';
import { TEST_SECRET_KEY } from '../helpers/cli.ts';
import { PASSWORD, addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const codeNow = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

async function enrolled(t: Parameters<typeof installedDatabase>[0]) {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const { base } = await startApp(t, knex);
  const { token } = await signIn(base, 'bob');
  const setup = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token });
  const { secret } = setup.body as { secret: string };
  const confirmed = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token,
    json: { code: await codeNow(secret) },
  });
  t.is(confirmed.status, 200, confirmed.text);
  return { knex, base, secret, recoveryCodes: (confirmed.body as { recoveryCodes: string[] }).recoveryCodes };
}

const challengeAt = async (base: string): Promise<string> => {
  const answer = await call(base, 'POST', '/api/v1/auth/login', {
    json: { username: 'bob', password: PASSWORD },
  });
  return (answer.body as { challenge: string }).challenge;
};

const stored = async (knex: Knex) =>
  (await knex('base_user_totp').first('secret', 'failures', 'last_time_step')) as {
    secret: string;
    failures: number;
    last_time_step: string;
  };

test('the database holds the secret sealed, never its base32; a code from it signs in', async (t) => {
  const { knex, base, secret } = await enrolled(t);
  const row = await stored(knex);
  t.regex(row.secret, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  t.false(row.secret.includes(secret));
  t.false(/[A-Z2-7]{16}/.test(row.secret), 'no run of base32 long enough to be a secret');
  const dump = JSON.stringify(await knex('base_user_totp').select());
  t.false(dump.includes(secret), 'nowhere in the row');

  // A fresh challenge, and a code one step ahead: the confirmation used the current step.
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
  const signed = await call(base, 'POST', '/api/v1/auth/login/second-factor', {
    json: { challenge: await challengeAt(base), code },
  });
  t.is(signed.status, 200, signed.text);
  t.truthy((signed.body as { token?: string }).token);
});

test('a backend with another SECRET_KEY refuses the code step clearly and changes nothing; a recovery code still signs in', async (t) => {
  const { knex, secret, recoveryCodes } = await enrolled(t);
  const other = await startApp(t, knex, {
    overrides: { sealingKey: sealingKey('another-key-of-at-least-32-characters!') },
  });
  const before = await stored(knex);
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
  const refused = await call(other.base, 'POST', '/api/v1/auth/login/second-factor', {
    json: { challenge: await challengeAt(other.base), code },
  });
  t.is(refused.status, 503, refused.text);
  t.like(refused.body, {
    error: {
      code: 'secret_key_mismatch',
      message:
        'a two-factor secret (base_user_totp:1) was sealed with another SECRET_KEY than the one set now',
    },
  });
  t.regex((refused.body as { error: { hint: string } }).error.hint, /set SECRET_KEY back/);
  t.deepEqual(await stored(knex), before, 'no failure counted, nothing rewritten');

  const recovered = await call(other.base, 'POST', '/api/v1/auth/login/second-factor', {
    json: { challenge: await challengeAt(other.base), recoveryCode: recoveryCodes[0] },
  });
  t.is(recovered.status, 200, recovered.text);
});

test('a backend without SECRET_KEY refuses setting two-factor sign-in up, naming the setting', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const { base } = await startApp(t, knex, { overrides: { sealingKey: null } });
  const { token } = await signIn(base, 'bob');
  const setup = await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token });
  t.is(setup.status, 503, setup.text);
  t.like(setup.body, { error: { code: 'secret_key_missing' } });
  t.regex((setup.body as { error: { hint: string } }).error.hint, /SECRET_KEY.*openssl rand -hex 32/);
  t.is(
    await knex('base_user_totp')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    0,
  );
});

// Rolling upgrades: replicas from before sealing (which stored and read the secret as plain base32)
// may run beside new ones for a while.

test('a replica from before sealing cannot take a code for a sealed secret: its check throws', async (t) => {
  const { knex, secret } = await enrolled(t);
  const { secret: sealed } = await stored(knex);
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
  // What the old code did with the stored value: otplib's verify, with the same tolerance.
  await t.throwsAsync(() => verify({ secret: sealed, token: code, epochTolerance: 30 }), {
    message: /Invalid Base32/,
  });
  await t.throwsAsync(() => generate({ secret: sealed }), { message: /Invalid Base32/ });
});

test('a secret a replica from before sealing set up (stored plain) signs in on a new one and is sealed then', async (t) => {
  const { knex, base } = await enrolled(t);
  const plain = generateSecret();
  await knex('base_user_totp').update({ secret: plain });
  const code = await generate({ secret: plain, epoch: Math.floor(Date.now() / 1000) + 30 });
  const signed = await call(base, 'POST', '/api/v1/auth/login/second-factor', {
    json: { challenge: await challengeAt(base), code },
  });
  t.is(signed.status, 200, signed.text);
  const row = await stored(knex);
  t.true(isSealed(row.secret), 'sealed at its first use');
  t.is(unseal(sealingKey(TEST_SECRET_KEY)!, row.secret, 'base_user_totp:1'), plain);
});

test('a setup a replica from before sealing began (stored plain) is confirmed on a new one and sealed', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'bob', ['admin']);
  const { base } = await startApp(t, knex);
  const { token } = await signIn(base, 'bob');
  t.is((await call(base, 'POST', '/api/v1/auth/two-factor/setup', { token })).status, 200);
  const plain = generateSecret();
  await knex('base_user_totp').update({ secret: plain });
  const confirmed = await call(base, 'POST', '/api/v1/auth/two-factor/confirm', {
    token,
    json: { code: await codeNow(plain) },
  });
  t.is(confirmed.status, 200, confirmed.text);
  const row = await stored(knex);
  t.true(isSealed(row.secret));
  t.is(unseal(sealingKey(TEST_SECRET_KEY)!, row.secret, 'base_user_totp:1'), plain);
});
