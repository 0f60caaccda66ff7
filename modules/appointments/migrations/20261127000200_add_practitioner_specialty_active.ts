import type { Knex } from 'knex';

/**
 * Practitioners get a specialty and an active flag. A practitioner who leaves is deactivated, not
 * deleted, once appointments refer to them: the history keeps its name, and new bookings can no
 * longer choose them. Aliases are other names of a practitioner, as another system wrote them (a
 * CSV provider id): an imported appointment naming an alias books with its practitioner.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('appointments_practitioner', (table) => {
    table.text('specialty');
    table.boolean('active').notNullable().defaultTo(true);
  });
  await knex.schema.createTable('appointments_practitioner_alias', (table) => {
    table.text('folded_name').primary();
    table.text('name').notNullable();
    table
      .integer('practitioner_id')
      .notNullable()
      .references('id')
      .inTable('appointments_practitioner')
      .onDelete('CASCADE');
    table.check("folded_name <> ''", {}, 'appointments_practitioner_alias_named');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('appointments_practitioner_alias');
  await knex.schema.alterTable('appointments_practitioner', (table) => {
    table.dropColumns('specialty', 'active');
  });
}
