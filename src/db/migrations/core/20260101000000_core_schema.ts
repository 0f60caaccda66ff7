import type { Knex } from 'knex';

/** The tables the controller keeps its truth in: modules, the operation log, seed records. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('core_module', (table) => {
    table.text('name').primary();
    table
      .text('state')
      .notNullable()
      .checkIn(
        ['uninstalled', 'installed', 'to_install', 'to_upgrade', 'to_uninstall'],
        'core_module_state_check',
      );
    table.text('version');
    table.timestamp('installed_at', { useTz: true });
    table.text('error_message');
    table.timestamp('last_state_change', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `ALTER TABLE core_module ADD CONSTRAINT core_module_name_check CHECK (name ~ '^[a-z][a-z0-9_]{0,62}$')`,
  );

  await knex.schema.createTable('core_module_operation_log', (table) => {
    table.bigIncrements('id');
    table.uuid('run_id').notNullable();
    table.text('module_name').notNullable();
    table.text('operation').notNullable();
    table.text('step').notNullable();
    table.text('status').notNullable();
    table.text('message');
    table.jsonb('detail');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['module_name', 'id']);
    table.index(['run_id']);
  });

  await knex.schema.createTable('core_external_id', (table) => {
    // Creation order (uninstall deletes newest first), not a key: every lookup is by module and
    // xml_id, and an index on id would only slow down a module installing 100,000 seed records.
    table.bigIncrements('id', { primaryKey: false });
    table.text('module_name').notNullable();
    table.text('xml_id').notNullable();
    table.text('table_name').notNullable();
    table.text('record_id').notNullable();
    table.boolean('noupdate').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['module_name', 'xml_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('core_external_id');
  await knex.schema.dropTable('core_module_operation_log');
  await knex.schema.dropTable('core_module');
}
