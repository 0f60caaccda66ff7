/**
 * The uninstall `check` step against a real PostgreSQL: the purge and the downgrade run for real
 * and are rolled back, so a check that passes changes nothing, and one that fails names what is
 * in the way (a foreign key, a view, a migration gone from disk) and changes nothing either.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { checkUninstall } from '../../../src/applier/steps/check.ts';
import { migrateUp } from '../../../src/applier/steps/migrate.ts';
import { WardError } from '../../../src/errors/ward-error.ts';
import { scratchDir } from '../../helpers/cli.ts';
import { testDatabase } from '../../helpers/database.ts';

/** A module `vault` whose one migration creates `vault_item`, migrated, with one seed record tracked. */
async function installedVault(t: Parameters<typeof testDatabase>[0]) {
  const { knex } = await testDatabase(t, { migrated: true });
  const dir = path.join(await scratchDir(), 'vault');
  await mkdir(path.join(dir, 'migrations'), { recursive: true });
  await writeFile(
    path.join(dir, 'migrations', '20260101000000_init.js'),
    [
      "export async function up(knex) { await knex.schema.createTable('vault_item', (t) => { t.increments('id'); t.text('name'); }); }",
      "export async function down(knex) { await knex.schema.dropTable('vault_item'); }",
      '',
    ].join('\n'),
  );
  const module = { name: 'vault', dir };
  await migrateUp(knex, module);
  const [item] = await knex('vault_item').insert({ name: 'seeded' }).returning('id');
  await knex('core_external_id').insert({
    module_name: 'vault',
    xml_id: 'item_seeded',
    table_name: 'vault_item',
    record_id: item.id,
    noupdate: false,
  });
  return { knex, module };
}

/** Everything the purge and the downgrade would touch. */
const state = async (knex: Knex) => ({
  tables: await knex('pg_tables').where({ schemaname: 'public' }).orderBy('tablename').pluck('tablename'),
  items: await knex('vault_item').select(),
  tracked: await knex('core_external_id').select('module_name', 'xml_id', 'table_name', 'record_id'),
  owned: await knex('core_module_table').select('module_name', 'table_name'),
  migrations: await knex('knex_migrations').orderBy('id').pluck('name'),
  lock: await knex('knex_migrations_lock').pluck('is_locked'),
});

test('a check that passes says what the downgrade would undo and changes nothing, in a transaction or not', async (t) => {
  const { knex, module } = await installedVault(t);
  const before = await state(knex);
  t.deepEqual(await checkUninstall(knex, [module]), { wouldUndo: ['vault/20260101000000_init'] });
  t.deepEqual(await knex.transaction((trx) => checkUninstall(trx, [module])), {
    wouldUndo: ['vault/20260101000000_init'],
  });
  t.deepEqual(await state(knex), before);
});

const blockers: Array<[string, string, RegExp]> = [
  [
    'a foreign key from a table that stays',
    'create table notes (id serial primary key, item_id integer references vault_item (id))',
    /cannot drop table vault_item because other objects depend on it \(constraint notes_item_id_fkey on table notes depends on table vault_item\)/,
  ],
  [
    'a view over its table',
    'create view item_names as select name from vault_item',
    /cannot drop table vault_item because other objects depend on it \(view item_names depends on table vault_item\)/,
  ],
  [
    'an applied migration gone from disk',
    "insert into knex_migrations (name, batch, migration_time) values ('vault/20270101000000_gone', 2, now())",
    /vault's migration branch cannot reach base: vault\/20270101000000_gone is applied but no longer on disk/,
  ],
];

for (const [title, sql, reason] of blockers) {
  test(`a check fails on ${title}, names it, and changes nothing`, async (t) => {
    const { knex, module } = await installedVault(t);
    await knex.raw(sql);
    const before = await state(knex);
    const error = await t.throwsAsync(
      knex.transaction((trx) => checkUninstall(trx, [module])),
      {
        instanceOf: WardError,
      },
    );
    t.is(error.code, 'uninstall_blocked');
    t.regex(error.message, /^the downgrade of vault would fail, so nothing was backed up, run or deleted: /);
    t.regex(error.message, reason);
    // A failure that carries its own fix (a migration gone from disk) keeps it; others get the general one.
    t.regex(
      error.message,
      title.includes('gone from disk')
        ? /restore the missing migration files in .*, then restart$/
        : /run `ward modules install vault` to keep vault$/,
    );
    t.is(error.hint, 'vault stays scheduled for uninstall, and this check runs again at every restart');
    t.deepEqual(await state(knex), before);
  });
}

test('the first uninstall of a cascade proves the later ones too: a view on a later module fails it, naming that module', async (t) => {
  const { knex, module } = await installedVault(t);
  const dir = path.join(await scratchDir(), 'ledger');
  await mkdir(path.join(dir, 'migrations'), { recursive: true });
  await writeFile(
    path.join(dir, 'migrations', '20260101000100_init.js'),
    [
      "export async function up(knex) { await knex.schema.createTable('ledger_entry', (t) => { t.increments('id'); }); }",
      "export async function down(knex) { await knex.schema.dropTable('ledger_entry'); }",
      '',
    ].join('\n'),
  );
  const ledger = { name: 'ledger', dir };
  await migrateUp(knex, ledger);
  t.deepEqual(await checkUninstall(knex, [module, ledger]), {
    wouldUndo: ['vault/20260101000000_init'],
    provenWith: ['ledger'],
  });
  await knex.raw('create view ledger_report as select id from ledger_entry');
  const before = await state(knex);
  const error = await t.throwsAsync(checkUninstall(knex, [module, ledger]), { instanceOf: WardError });
  t.is(error.code, 'uninstall_blocked');
  t.regex(error.message, /^the downgrade of ledger, which this restart uninstalls after vault, would fail/);
  t.regex(error.message, /ledger_report/);
  t.deepEqual(await state(knex), before, 'vault is untouched: nothing of the cascade ran');
});
