import type { Knex } from 'knex';
import { foldName, preferredSpelling } from '../lib/practitioners.ts';

/**
 * Practitioners become records. Every appointment's free-text name becomes a practitioner, one per
 * folded name ("Dr. Cho" and "Dr Cho" are one), shown with its most used spelling; appointments
 * without a name keep no practitioner. `practitioner_name` stays as the name the appointment was
 * booked or imported with. Appointments also record whether they were booked over another one of
 * the same practitioner (`overbooked`) and why they were cancelled.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('appointments_practitioner', (table) => {
    table.increments('id');
    table.text('name').notNullable();
    table
      .text('folded_name')
      .notNullable()
      .unique({ indexName: 'appointments_practitioner_folded_name_unique' });
    // A user who leaves keeps their appointments' practitioner; only the link to the sign-in goes.
    table
      .integer('user_id')
      .nullable()
      .unique({ indexName: 'appointments_practitioner_user_id_unique' })
      .references('id')
      .inTable('base_user')
      .onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("folded_name <> ''", {}, 'appointments_practitioner_named');
  });
  await knex.schema.alterTable('appointments_appointment', (table) => {
    table
      .integer('practitioner_id')
      .nullable()
      .references('id')
      .inTable('appointments_practitioner')
      .onDelete('RESTRICT');
    table.boolean('overbooked').notNullable().defaultTo(false);
    table.text('cancellation_reason');
    // The busy check's lookup: a practitioner's appointments by start.
    table.index(['practitioner_id', 'start_at'], 'appointments_appointment_practitioner_idx');
  });

  const names = (await knex('appointments_appointment')
    .select('practitioner_name')
    .count<Array<{ practitioner_name: string; count: string }>>('* as count')
    .groupBy('practitioner_name')) as Array<{ practitioner_name: string; count: string }>;
  const spellings = new Map<string, Map<string, number>>();
  for (const { practitioner_name: name, count } of names) {
    const folded = foldName(name);
    if (folded === '') continue;
    const uses = spellings.get(folded) ?? new Map<string, number>();
    uses.set(name, (uses.get(name) ?? 0) + Number(count));
    spellings.set(folded, uses);
  }
  for (const [folded, uses] of spellings) {
    const [{ id }] = (await knex('appointments_practitioner')
      .insert({ name: preferredSpelling(uses).trim(), folded_name: folded })
      .returning('id')) as [{ id: number }];
    await knex('appointments_appointment')
      .whereIn('practitioner_name', [...uses.keys()])
      .update({ practitioner_id: id });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('appointments_appointment', (table) => {
    table.dropIndex(['practitioner_id', 'start_at'], 'appointments_appointment_practitioner_idx');
    table.dropColumns('practitioner_id', 'overbooked', 'cancellation_reason');
  });
  await knex.schema.dropTable('appointments_practitioner');
}
