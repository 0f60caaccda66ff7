import type { Knex } from 'knex';

/**
 * Practitioners get a specialty and an active flag. A practitioner who leaves is deactivated, not
 * deleted, once appointments refer to them: the history keeps its name, and new bookings can no
 * longer choose them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('appointments_practitioner', (table) => {
    table.text('specialty');
    table.boolean('active').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('appointments_practitioner', (table) => {
    table.dropColumns('specialty', 'active');
  });
}
