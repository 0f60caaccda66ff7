/**
 * The real backend seals two-factor secrets stored before sealing existed, before it serves, and
 * says so in its log; a code from the same secret still signs in. Started without SECRET_KEY, it
 * serves, and its log says two-factor sign-in cannot work and which setting to set.
 */
import test from 'ava';
import { generate } from 'otplib';
import { PASSWORD, AUTH_MODULES, addUser, call, installedDatabase } from '../helpers/app.ts';
import { TEST_SECRET_KEY, scratchDir } from '../helpers/cli.ts';
import { serve } from '../helpers/serve.ts';

const PLAIN = 'EES62Z4BTFXLOXDWCM5QJKHFWMCN7ZXU';

async function withPlainSecret(t: Parameters<typeof installedDatabase>[0]) {
  const { url, knex } = await installedDatabase(t);
  const bob = await addUser(knex, 'bob', ['admin']);
  await knex('base_user_totp').insert({ user_id: bob, secret: PLAIN, confirmed_at: knex.fn.now() });
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir('ward-seal-'),
    WARD_MODULE_PATHS: AUTH_MODULES,
  };
  return { knex, env };
}

test('a start seals a secret stored unsealed, logs it, and a code from it signs in', async (t) => {
  const { knex, env } = await withPlainSecret(t);
  const served = await serve({ ...env, SECRET_KEY: TEST_SECRET_KEY });
  t.teardown(() => served.stop());
  await served.waitFor(/sealed the two-factor secrets stored before sealing existed/);
  const { secret } = (await knex('base_user_totp').first('secret')) as { secret: string };
  t.regex(secret, /^v1\./);
  t.false(secret.includes(PLAIN));
  const login = await call(served.base, 'POST', '/api/v1/auth/login', {
    json: { username: 'bob', password: PASSWORD },
  });
  const { challenge } = login.body as { challenge: string };
  const code = await generate({ secret: PLAIN, epoch: Math.floor(Date.now() / 1000) });
  const second = await call(served.base, 'POST', '/api/v1/auth/login/second-factor', {
    json: { challenge, code },
  });
  t.is(second.status, 200, second.text);
});

test('a start without SECRET_KEY serves, leaves the secret as it was, and logs what to set', async (t) => {
  const { knex, env } = await withPlainSecret(t);
  const served = await serve(env);
  t.teardown(() => served.stop());
  const output = await served.waitFor(/two-factor sign-in cannot work/);
  t.regex(output, /secret_key_missing/);
  t.regex(output, /openssl rand -hex 32/);
  t.false(output.includes(PLAIN), 'the secret is never logged');
  t.is(((await knex('base_user_totp').first('secret')) as { secret: string }).secret, PLAIN);
});
