import type { Knex } from 'knex';

/**
 * The patients a list or a batch of the audit trail showed or wrote (`patient_ids`), beside the one
 * patient of a read or a change (`patient_id`), so that "every access to this patient" finds a
 * list that showed them. A GIN index answers `patient_ids @> array[<id>]`; partial, since most rows
 * (reads and changes of one record) have none. The chain covers the column: see src/audit/chain.ts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table core_audit_event add column patient_ids text[] null');
  await knex.raw(
    'create index core_audit_event_patients on core_audit_event using gin (patient_ids) where patient_ids is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table core_audit_event drop column patient_ids');
}
