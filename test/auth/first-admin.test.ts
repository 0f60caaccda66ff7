import test from 'ava';
import { ensureFirstAdmin } from '../../src/auth/first-admin.ts';
import { silentLogger } from '../../src/logger.ts';
import { call, installedDatabase, startApp } from '../helpers/app.ts';
import { testDatabase } from '../helpers/database.ts';

test('first run: creates admin with a random password, shows it once, stores only its hash', async (t) => {
  const { knex } = await installedDatabase(t);
  let printed = '';
  t.deepEqual(await ensureFirstAdmin(knex, silentLogger, (text) => (printed += text)), { username: 'admin' });
  const password = /^ {4}(\S{24})$/m.exec(printed)?.[1];
  t.truthy(password, printed);
  t.regex(printed, /Sign in: POST \/api\/v1\/auth\/login/);
  t.regex(printed, /ward users set-password admin --password-stdin/);
  const row = await knex('base_user').where({ username: 'admin' }).first();
  t.regex(row.password_hash, /^\$scrypt\$/);
  t.false(JSON.stringify(await knex('base_user').select()).includes(password as string));

  const { base } = await startApp(t, knex);
  const login = await call(base, 'POST', '/api/v1/auth/login', { json: { username: 'admin', password } });
  t.is(login.status, 200, login.text);
  const me = await call(base, 'GET', '/api/v1/me', { token: (login.body as { token: string }).token });
  t.deepEqual((me.body as { roles: string[] }).roles, ['admin']);

  let again = '';
  t.is(
    await ensureFirstAdmin(knex, silentLogger, (text) => (again += text)),
    null,
    'only while no user exists',
  );
  t.is(again, '');
});

test('two replicas starting together create one admin and print one password', async (t) => {
  const { knex } = await installedDatabase(t);
  let printed = '';
  const results = await Promise.all(
    [1, 2, 3].map(() => ensureFirstAdmin(knex, silentLogger, (text) => (printed += text))),
  );
  t.is(results.filter((result) => result !== null).length, 1);
  t.is(printed.match(/shown this once/g)?.length, 1);
  t.is((await knex('base_user').select()).length, 1);
  t.is((await knex('base_user_role').select()).length, 1);
});

test('without the base module, first run does nothing', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  t.is(await ensureFirstAdmin(knex, silentLogger, () => t.fail('printed')), null);
});
