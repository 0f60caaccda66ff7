import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('patients_patient', (table) => {
    table.increments('id');
    // Medical record number: the identifier staff and other systems know a patient by.
    table.string('mrn', 64).notNullable().unique();
    table.string('family_name').notNullable();
    table.string('given_name').notNullable();
    table.date('birth_date');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('patients_patient');
}
