/**
 * The start-up's one-query check that lets a restart skip knex's migrator: it must say "at head"
 * only when the migrator would have nothing to do. Knex's lock table is never read: Ward frees a
 * stale lock row itself, under its own advisory lock, whenever it runs knex's migrator.
 */
import test from 'ava';
import { coreAtHead, migrateCore } from '../../src/db/migrate.ts';
import { testDatabase } from '../helpers/database.ts';

test('a database Ward never started in is not at head', async (t) => {
  const { knex } = await testDatabase(t);
  t.false(await coreAtHead(knex));
});

test('after the core migrations ran it is at head', async (t) => {
  const { knex } = await testDatabase(t);
  await migrateCore(knex);
  t.true(await coreAtHead(knex));
});

test("knex's lock table is not read: a lock row a crash left set is freed when Ward next migrates", async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await knex('knex_migrations_lock').update({ is_locked: 1 });
  t.true(await coreAtHead(knex), 'the core branch is at head whatever knex recorded about its lock');
  await knex('knex_migrations').where('name', 'core/20261127000000_module_requires').delete();
  await knex.schema.alterTable('core_module', (table) => table.dropColumn('requires'));
  t.false(await coreAtHead(knex));
  t.deepEqual(await migrateCore(knex), ['core/20261127000000_module_requires']);
  t.deepEqual(await knex('knex_migrations_lock').pluck('is_locked'), [0]);
});

test('a core migration missing from the table (Ward was upgraded) means the migrator must run', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await knex('knex_migrations').where('name', 'core/20260102000000_module_tables').delete();
  t.false(await coreAtHead(knex));
});

test("other branches' rows do not count as core migrations", async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await knex('knex_migrations').where('name', 'like', 'core/%').delete();
  await knex('knex_migrations').insert({
    name: 'score/20260101000000_core_schema',
    batch: 9,
    migration_time: new Date(),
  });
  t.false(await coreAtHead(knex));
});
