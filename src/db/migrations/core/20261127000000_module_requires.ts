import type { Knex } from 'knex';

/**
 * The version ranges (`requires`) of the version each module was installed or upgraded to. The
 * manifest on disk may already be a newer version's, so an upgrade of a dependency is checked
 * against the ranges of what is installed. Null: installed before Ward recorded them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('core_module', (table) => {
    table.jsonb('requires');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('core_module', (table) => {
    table.dropColumn('requires');
  });
}
