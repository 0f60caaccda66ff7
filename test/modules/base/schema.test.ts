/**
 * The base module's auth schema goes through the controller's lifecycle like any module's: it
 * installs, backs up (hashes and all), downgrades to nothing, and installs again.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { createApiToken } from '../../../src/auth/api-tokens.ts';
import { createSession } from '../../../src/auth/sessions.ts';
import { loadConfig } from '../../../src/config.ts';
import { discover } from '../../../src/manifests/discover.ts';
import { reconcile } from '../../../src/applier/reconcile.ts';
import { schedule } from '../../../src/db/schedule.ts';
import { silentLogger } from '../../../src/logger.ts';
import { AUTH_MODULES, addUser, install, installedDatabase } from '../../helpers/app.ts';
import { scratchDir } from '../../helpers/cli.ts';

const AUTH_TABLES = [
  'base_api_token',
  'base_recovery_code',
  'base_role',
  'base_session',
  'base_sign_in_challenge',
  'base_user',
  'base_user_role',
  'base_user_totp',
];

test('uninstalling base (forced) backs up its rows, drops its tables and trigger function; reinstall works', async (t) => {
  const { url, knex } = await installedDatabase(t);
  const id = await addUser(knex, 'ada', ['admin']);
  await createSession(knex, id);
  await createApiToken(knex, { userId: id, role: 'admin', name: 'ci', expiresAt: null });
  t.deepEqual(
    (await knex('core_module_table')
      .where({ module_name: 'base' })
      .orderBy('table_name')
      .pluck('table_name')) as string[],
    AUTH_TABLES,
  );

  const storage = await scratchDir('ward-base-');
  const config = loadConfig({
    DATABASE_URL: url,
    WARD_STORAGE_DIR: storage,
    WARD_MODULE_PATHS: AUTH_MODULES,
  });
  const inventory = await discover(config);
  await schedule(
    knex,
    inventory,
    { kind: 'uninstall', name: 'base', force: true, cascade: true },
    { dryRun: false },
  );
  const result = await reconcile(knex, url, config, silentLogger);
  t.deepEqual(result.failed, []);
  for (const table of AUTH_TABLES) t.false(await knex.schema.hasTable(table), table);
  const functions = await knex('pg_proc')
    .where({ proname: 'base_notify_auth_change' })
    .count('* as n')
    .first();
  t.is(Number(functions?.n), 0);

  const backup = (await readdir(path.join(storage, 'backups'))).find((file) =>
    file.startsWith('module_base_'),
  );
  const sql = await readFile(path.join(storage, 'backups', backup as string), 'utf8');
  // The tables the test put rows in (two-factor sign-in's stay empty).
  for (const table of ['base_api_token', 'base_role', 'base_session', 'base_user', 'base_user_role'])
    t.regex(sql, new RegExp(`INSERT INTO "${table}"`), table);

  await install(url, ['base']);
  t.true(await knex.schema.hasTable('base_api_token'));
  t.is((await knex('base_user').select()).length, 0);
});
