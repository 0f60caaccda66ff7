/**
 * The preflight's shell on real files and a real database: what the start checks before it opens
 * the database (DATABASE_URL, the storage folder) and after (a first admin's password file left
 * from before) is found without creating anything, and a backend whose settings now name another
 * database says so instead of checking the rows of the one it uses.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { firstAdminPasswordFile } from '../../src/auth/first-admin.ts';
import { loadConfig } from '../../src/config.ts';
import { checkFiles, recheck, startInputs } from '../../src/inspect/preflight.ts';
import { addUser, authEnv, installedDatabase } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

test('a DATABASE_URL the start would refuse is a finding with the start’s words', async (t) => {
  const storage = await scratchDir();
  const config = loadConfig({ ...authEnv('mysql://ward@db/ward', storage) });
  const { database } = await checkFiles(config);
  t.like(database, {
    code: 'database_url_invalid',
    message: 'DATABASE_URL is a mysql URL, not a PostgreSQL one',
  });
  t.is((await checkFiles(loadConfig(authEnv('postgres://ward@db/ward', storage)))).database, null);
});

test('a storage folder the start could not create or write is a finding; a missing one it could create is not, and is not created', async (t) => {
  const scratch = await scratchDir();
  await writeFile(path.join(scratch, 'a-file'), '');
  const under = path.join(scratch, 'a-file', 'storage');
  const { storage } = await checkFiles(loadConfig(authEnv('postgres://ward@db/ward', under)));
  t.like(storage, { code: 'storage_unusable', message: `cannot use the storage folder ${under} (ENOTDIR)` });
  const missing = path.join(scratch, 'new', 'storage');
  t.is((await checkFiles(loadConfig(authEnv('postgres://ward@db/ward', missing)))).storage, null);
  t.false(await exists(path.join(scratch, 'new')), 'the preflight created nothing');
});

test('a first admin password file left in storage, with no user in the database, is a finding until a user exists', async (t) => {
  const { url, knex } = await installedDatabase(t);
  const storage = await scratchDir();
  const config = loadConfig(authEnv(url, storage));
  t.is((await startInputs(knex, config)).firstAdminFile, null, 'no file: the start creates the admin');
  const file = firstAdminPasswordFile(storage);
  await writeFile(file, 'an old password\n');
  t.like((await startInputs(knex, config)).firstAdminFile, {
    code: 'first_admin_file_exists',
    message: `${file} already exists, yet this database has no user: it holds the first admin password of an earlier database, or was left by a first start that was interrupted`,
  });
  await addUser(knex, 'ada', ['admin']);
  t.is(
    (await startInputs(knex, config)).firstAdminFile,
    null,
    'a user exists: the start leaves the file alone',
  );
});

test('a running backend whose settings now name another database reports that, not the rows of its own', async (t) => {
  t.is(process.env.DATABASE_URL, undefined, 'the settings come from the file alone');
  const { url, knex } = await installedDatabase(t);
  const root = await scratchDir();
  const storage = path.join(root, 'storage');
  await mkdir(storage);
  const settings = (databaseUrl: string) =>
    writeFile(path.join(root, '.env'), `DATABASE_URL=${databaseUrl}\nWARD_STORAGE_DIR=${storage}\n`);
  await settings(url);
  const running = loadConfig({}, { root });
  // An orphan row: were this database checked, that would be the finding.
  await knex('core_module').insert({ name: 'vanished', state: 'installed', version: '1.0.0' });
  t.true((await recheck(knex, running)).some((finding) => finding.code === 'orphan_modules'));
  await settings('postgres://ward:s3cret@elsewhere:5432/ward');
  t.deepEqual(
    (await recheck(knex, running)).map(({ code, message }) => ({ code, message })),
    [
      {
        code: 'database_url_changed',
        message: `DATABASE_URL changed since this backend started (from ${url.replace(/:[^:@/]+@/, ':***@')} to postgres://ward:***@elsewhere:5432/ward): the next start would open another database, which this backend cannot check`,
      },
    ],
  );
});
