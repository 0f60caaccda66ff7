import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ensureFirstAdmin } from '../../src/auth/first-admin.ts';
import { hashPassword } from '../../src/auth/password.ts';
import { mustChangePassword, requireUser, setPasswordHash } from '../../src/auth/users.ts';
import { silentLogger } from '../../src/logger.ts';
import { call, installedDatabase, startApp } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

const FILE = 'first-admin-password';

test('first run: creates admin, writes its random password to a 0600 file, prints only where, stores only its hash', async (t) => {
  const { knex } = await installedDatabase(t);
  const storage = await scratchDir();
  let printed = '';
  const file = path.join(storage, FILE);
  t.deepEqual(await ensureFirstAdmin(knex, silentLogger, storage, (text) => (printed += text)), {
    username: 'admin',
    passwordFile: file,
  });
  const password = /^(\S{24})\n$/.exec(await readFile(file, 'utf8'))?.[1];
  t.truthy(password);
  t.is((await stat(file)).mode & 0o777, 0o600, 'readable by its owner only');
  t.false(printed.includes(password as string), 'the password is not printed');
  t.regex(printed, new RegExp(`^ {4}${file.replace(/[.]/g, '\\.')}$`, 'm'));
  t.regex(printed, /"admin", with the admin role/);
  t.regex(printed, /POST \/api\/v1\/auth\/password/);
  t.regex(printed, /ward users set-password admin --password-stdin/);
  const row = await knex('base_user').where({ username: 'admin' }).first();
  t.regex(row.password_hash, /^\$scrypt\$/);
  t.false(JSON.stringify(await knex('base_user').select()).includes(password as string));
  t.true(await mustChangePassword(knex, row.id), 'Ward chose it: the admin must choose their own');

  const { base } = await startApp(t, knex);
  const login = await call(base, 'POST', '/api/v1/auth/login', { json: { username: 'admin', password } });
  t.is(login.status, 200, login.text);
  t.true((login.body as { mustChangePassword: boolean }).mustChangePassword);
  const me = await call(base, 'GET', '/api/v1/me', { token: (login.body as { token: string }).token });
  t.deepEqual((me.body as { roles: string[] }).roles, ['admin']);

  let again = '';
  t.is(
    await ensureFirstAdmin(knex, silentLogger, storage, (text) => (again += text)),
    null,
    'only while no user exists',
  );
  t.is(again, '');
  t.is(await readFile(file, 'utf8'), `${password}\n`, 'kept while the admin has not chosen a password');
});

test('two replicas starting together create one admin and write one password file', async (t) => {
  const { knex } = await installedDatabase(t);
  const storage = await scratchDir();
  let printed = '';
  const results = await Promise.all(
    [1, 2, 3].map(() => ensureFirstAdmin(knex, silentLogger, storage, (text) => (printed += text))),
  );
  t.is(results.filter((result) => result !== null).length, 1);
  t.is(printed.match(/Ward created the first user/g)?.length, 1);
  t.is((await knex('base_user').select()).length, 1);
  t.is((await knex('base_user_role').select()).length, 1);
  t.regex(await readFile(path.join(storage, FILE), 'utf8'), /^\S{24}\n$/);
});

test('a password file already in the storage folder is never overwritten: no admin, and the fix', async (t) => {
  const { knex } = await installedDatabase(t);
  const storage = await scratchDir();
  const file = path.join(storage, FILE);
  await writeFile(file, 'an older password\n');
  const error = await t.throwsAsync(ensureFirstAdmin(knex, silentLogger, storage, () => t.fail('printed')));
  t.is(
    error?.message,
    `${file} already exists, yet this database has no user: it holds the first admin password of an earlier database, or was left by a first start that was interrupted`,
  );
  t.regex(
    (error as Error & { hint: string }).hint,
    /first start never finished, delete the file and start again/,
  );
  t.is(await readFile(file, 'utf8'), 'an older password\n');
  t.deepEqual(await knex('base_user').select(), [], 'no admin whose password nobody knows');
});

test('a password file that cannot be written is deleted and no admin is created, so the next start succeeds', async (t) => {
  const { knex } = await installedDatabase(t);
  const storage = await scratchDir();
  const file = path.join(storage, FILE);
  const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const error = await t.throwsAsync(
    ensureFirstAdmin(
      knex,
      silentLogger,
      storage,
      () => t.fail('printed'),
      async () => {
        throw full;
      },
    ),
  );
  t.is(error, full);
  await t.throwsAsync(stat(file), { code: 'ENOENT' }, 'no empty file left behind');
  t.deepEqual(await knex('base_user').select(), [], 'no admin whose password nobody knows');

  const created = await ensureFirstAdmin(knex, silentLogger, storage, () => undefined);
  t.is(created?.username, 'admin');
  t.regex(await readFile(file, 'utf8'), /^\S{24}\n$/);
});

test('the file goes at the next start once the admin chose a password elsewhere (ward users set-password)', async (t) => {
  const { knex } = await installedDatabase(t);
  const storage = await scratchDir();
  await ensureFirstAdmin(knex, silentLogger, storage, () => undefined);
  const admin = await requireUser(knex, 'admin');
  await setPasswordHash(knex, admin.id, await hashPassword('a password of my own'));
  t.false(await mustChangePassword(knex, admin.id), 'setting a password clears the pending change');
  t.is(await ensureFirstAdmin(knex, silentLogger, storage, () => t.fail('printed')), null);
  await t.throwsAsync(stat(path.join(storage, FILE)), { code: 'ENOENT' });
});

test('without the base module, first run does nothing', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const storage = await scratchDir();
  t.is(await ensureFirstAdmin(knex, silentLogger, storage, () => t.fail('printed')), null);
  await t.throwsAsync(stat(path.join(storage, FILE)), { code: 'ENOENT' });
});
