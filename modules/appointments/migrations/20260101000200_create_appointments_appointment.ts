import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('appointments_appointment', (table) => {
    table.increments('id');
    // Restrict, not cascade: deleting a patient must not silently erase their appointment history.
    table
      .integer('patient_id')
      .notNullable()
      .references('id')
      .inTable('patients_patient')
      .onDelete('RESTRICT');
    table.timestamp('start_at', { useTz: true }).notNullable();
    table.timestamp('end_at', { useTz: true }).notNullable();
    table.string('status', 20).notNullable().defaultTo('scheduled');
    table.index(['patient_id', 'start_at']);
    table.check('end_at > start_at', {}, 'appointments_appointment_ends_after_start');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('appointments_appointment');
}
