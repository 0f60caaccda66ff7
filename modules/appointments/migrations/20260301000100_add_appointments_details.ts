import type { Knex } from 'knex';

/**
 * Practitioner, reason and timestamps, and the status codes as a table (seeded from
 * seeds/10_statuses.json) that `status` must name. The codes are FHIR R4's Appointment.status
 * values, so imported appointments keep theirs. A code renamed by a later seed carries its
 * appointments along (on update cascade); a code in use cannot be deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('appointments_status', (table) => {
    table.increments('id');
    table.text('code').notNullable().unique();
    table.text('label').notNullable();
  });
  await knex.schema.alterTable('appointments_appointment', (table) => {
    table.text('practitioner_name').notNullable().defaultTo('');
    table.text('reason');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table
      .foreign('status', 'appointments_appointment_status_foreign')
      .references('code')
      .inTable('appointments_status')
      .onUpdate('CASCADE')
      .onDelete('RESTRICT');
    // The order of every list, so a page is an index range scan (patient lists use the older index).
    table.index(['start_at', 'id'], 'appointments_appointment_start_idx');
  });
  await knex.raw("alter table appointments_appointment alter column status set default 'booked'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("alter table appointments_appointment alter column status set default 'scheduled'");
  await knex.schema.alterTable('appointments_appointment', (table) => {
    table.dropIndex(['start_at', 'id'], 'appointments_appointment_start_idx');
    table.dropForeign('status', 'appointments_appointment_status_foreign');
    table.dropColumns('practitioner_name', 'reason', 'created_at', 'updated_at');
  });
  await knex.schema.dropTable('appointments_status');
}
