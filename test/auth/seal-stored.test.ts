import test from 'ava';
import type { Knex } from 'knex';
import { sealStoredSecrets } from '../../src/auth/seal-stored.ts';
import { sealingKey, unseal } from '../../src/auth/secret-seal.ts';
import { addUser, installedDatabase } from '../helpers/app.ts';
import { testDatabase } from '../helpers/database.ts';
import { openPool } from '../../src/db/pg-client.ts';

const KEY = sealingKey('a-deployment-secret-key-of-32-chars+')!;
const PLAIN = 'JBSWY3DPEHPK3PXPJBSWY3DPEH';

async function withPlainSecrets(t: Parameters<typeof installedDatabase>[0]) {
  const { knex, url } = await installedDatabase(t);
  const pool = await openPool(url, 1);
  t.teardown(() => pool.end());
  const bob = await addUser(knex, 'bob', ['admin']);
  const eve = await addUser(knex, 'eve', []);
  await knex('base_user_totp').insert([
    { user_id: bob, secret: PLAIN, confirmed_at: knex.fn.now() },
    { user_id: eve, secret: 'KRSXG5CTMVRXEZLUKRSXG5CT' },
  ]);
  return { knex, pool, bob, eve };
}

const secrets = async (knex: Knex) =>
  (await knex('base_user_totp').orderBy('user_id').select('user_id', 'secret')) as Array<{
    user_id: number;
    secret: string;
  }>;

test('secrets stored before sealing are sealed once, and open to what they were', async (t) => {
  const { knex, pool, bob, eve } = await withPlainSecrets(t);
  t.deepEqual(await sealStoredSecrets(pool, KEY), { sealed: 2, problem: null });
  const rows = await secrets(knex);
  t.false(rows.some((row) => row.secret.includes(PLAIN)));
  t.is(unseal(KEY, rows[0]!.secret, `base_user_totp:${bob}`), PLAIN);
  t.is(unseal(KEY, rows[1]!.secret, `base_user_totp:${eve}`), 'KRSXG5CTMVRXEZLUKRSXG5CT');
  t.deepEqual(await sealStoredSecrets(pool, KEY), { sealed: 0, problem: null }, 'a second run does nothing');
  t.deepEqual(await secrets(knex), rows);
});

test('without SECRET_KEY nothing is sealed and the problem names the setting', async (t) => {
  const { knex, pool } = await withPlainSecrets(t);
  const before = await secrets(knex);
  const { sealed, problem } = await sealStoredSecrets(pool, null);
  t.is(sealed, 0);
  t.is(problem?.code, 'secret_key_missing');
  t.deepEqual(await secrets(knex), before);
});

test('with another SECRET_KEY than the sealed rows had, nothing is sealed with it and the mismatch is reported', async (t) => {
  const { knex, pool, eve } = await withPlainSecrets(t);
  await sealStoredSecrets(pool, KEY);
  await knex('base_user_totp').where({ user_id: eve }).update({ secret: 'KRSXG5CTMVRXEZLUKRSXG5CT' });
  const before = await secrets(knex);
  const { sealed, problem } = await sealStoredSecrets(
    pool,
    sealingKey('another-key-of-at-least-32-characters!'),
  );
  t.is(sealed, 0);
  t.is(problem?.code, 'secret_key_mismatch');
  t.deepEqual(await secrets(knex), before, 'no secret is sealed with a key the others do not share');
});

test('a database without the base module is left alone', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const pool = await openPool(url, 1);
  t.teardown(() => pool.end());
  t.deepEqual(await sealStoredSecrets(pool, null), { sealed: 0, problem: null });
});
