import type { Knex } from 'knex';

/**
 * Which tables each module owns: recorded by the controller when a module's migration creates
 * them (it compares the schema's tables before and after each migration), and forgotten when a
 * migration drops them. Uninstall backs up exactly these tables.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('core_module_table', (table) => {
    table.text('module_name').notNullable();
    table.text('table_name').notNullable();
    table.text('migration').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['table_name']);
    table.index(['module_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('core_module_table');
}
