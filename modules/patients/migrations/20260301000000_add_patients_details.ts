import type { Knex } from 'knex';

/**
 * Sex, contact details and an update stamp, plus the indexes behind `GET /patients?q=`. Names are
 * lower-cased with ICU's root locale, so "Öberg" folds whatever the database's LC_CTYPE (the
 * embedded server's is C, which folds ASCII only), then compared in the "C" collation, in which a
 * prefix LIKE can use an index. The name index also serves the list's order and cursor. The same
 * expressions are in lib/queries.ts; they must stay identical for the indexes to be used.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('patients_patient', (table) => {
    table.text('sex').notNullable().defaultTo('unknown');
    table.text('phone');
    table.text('email');
    // FHIR-shaped: { line: string[], city, state, postalCode, country }, every field optional.
    table.jsonb('address');
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("sex in ('female', 'male', 'other', 'unknown')", {}, 'patients_patient_sex_known');
  });
  const folded = (column: string) => `(lower(${column} collate "und-x-icu") collate "C")`;
  await knex.raw(
    `create index patients_patient_name_idx on patients_patient
       (${folded('family_name')}, ${folded('given_name')}, id)`,
  );
  await knex.raw(
    `create index patients_patient_given_name_idx on patients_patient (${folded('given_name')})`,
  );
  await knex.raw(`create index patients_patient_mrn_folded_idx on patients_patient (${folded('mrn')})`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index patients_patient_mrn_folded_idx');
  await knex.raw('drop index patients_patient_given_name_idx');
  await knex.raw('drop index patients_patient_name_idx');
  await knex.schema.alterTable('patients_patient', (table) => {
    table.dropChecks('patients_patient_sex_known');
    table.dropColumns('sex', 'phone', 'email', 'address', 'updated_at');
  });
}
