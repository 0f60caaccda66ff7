/**
 * knex's known traps with one migration table shared by many branches, each tested against a real
 * PostgreSQL with throw-away module directories.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { branchMigrations, downgradeToBase, migrateUp } from '../../../src/applier/steps/migrate.ts';
import { scratchDir } from '../../helpers/cli.ts';
import { testDatabase } from '../../helpers/database.ts';

/** A module directory whose one migration, named `file`, creates `<module>_<table>`. */
async function moduleWith(name: string, file: string, table: string) {
  const dir = path.join(await scratchDir(), name);
  await mkdir(path.join(dir, 'migrations'), { recursive: true });
  await writeFile(
    path.join(dir, 'migrations', file),
    [
      `export async function up(knex) { await knex.schema.createTable('${name}_${table}', (t) => t.increments('id')); }`,
      `export async function down(knex) { await knex.schema.dropTable('${name}_${table}'); }`,
      '',
    ].join('\n'),
  );
  return { name, dir };
}

const rows = async (knex: Knex) => (await knex('knex_migrations').orderBy('id').pluck('name')) as string[];

test('migration files with the same name in two modules are two migrations', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const alpha = await moduleWith('alpha', '20260101000000_init.js', 'thing');
  const beta = await moduleWith('beta', '20260101000000_init.js', 'thing');
  t.deepEqual(await migrateUp(knex, alpha), ['alpha/20260101000000_init']);
  t.deepEqual(await migrateUp(knex, beta), ['beta/20260101000000_init']);
  t.true(await knex.schema.hasTable('alpha_thing'));
  t.true(await knex.schema.hasTable('beta_thing'));
});

test("another branch's rows do not make knex call the migration table corrupt", async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const alpha = await moduleWith('alpha', '20260101000000_init.js', 'thing');
  const beta = await moduleWith('beta', '20260102000000_init.js', 'thing');
  await migrateUp(knex, alpha);
  t.deepEqual(await migrateUp(knex, beta), ['beta/20260102000000_init']);
  t.deepEqual(await migrateUp(knex, alpha), [], 'already at head');
});

test('downgrading a branch touches only that branch, even when another ran in a later batch', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const alpha = await moduleWith('alpha', '20260101000000_init.js', 'thing');
  const beta = await moduleWith('beta', '20260101000000_init.js', 'thing');
  await migrateUp(knex, alpha);
  await migrateUp(knex, beta);
  t.deepEqual(await downgradeToBase(knex, alpha), ['alpha/20260101000000_init']);
  t.false(await knex.schema.hasTable('alpha_thing'));
  t.true(await knex.schema.hasTable('beta_thing'), 'the last batch (beta) was not rolled back');
  t.true((await rows(knex)).includes('beta/20260101000000_init'));
  t.deepEqual(await downgradeToBase(knex, alpha), [], 'downgrading again does nothing');
});

test('the tables a migration creates become the module’s own, and a downgrade forgets them', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const alpha = await moduleWith('alpha', '20260101000000_init.js', 'thing');
  await migrateUp(knex, alpha);
  t.deepEqual(await knex('core_module_table').select('module_name', 'table_name', 'migration'), [
    { module_name: 'alpha', table_name: 'alpha_thing', migration: 'alpha/20260101000000_init' },
  ]);
  await downgradeToBase(knex, alpha);
  t.deepEqual(await knex('core_module_table').select(), []);
});

test('a downgrade refuses when an applied migration is gone from disk, naming it', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const alpha = await moduleWith('alpha', '20260101000000_init.js', 'thing');
  await migrateUp(knex, alpha);
  await knex('knex_migrations').insert({
    name: 'alpha/20250101000000_lost',
    batch: 9,
    migration_time: new Date(),
  });
  const error = await t.throwsAsync(downgradeToBase(knex, alpha));
  t.regex(
    error.message,
    /alpha's migration branch cannot reach base: alpha\/20250101000000_lost is applied but no longer on disk/,
  );
});

test('a module without migrations/ has an empty branch', async (t) => {
  const dir = await scratchDir();
  t.deepEqual(await branchMigrations({ name: 'legacy', dir }), []);
});
