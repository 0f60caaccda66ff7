import type { Knex } from 'knex';

/**
 * The patients a list or a batch of the audit trail showed or wrote (`patient_ids`), beside the one
 * patient of a read or a change (`patient_id`), so that "every access to this patient" finds a
 * list that showed them. The chain covers the column: see src/audit/chain.ts.
 *
 * The GIN index answering `patient_ids @> array[<id>]` is built by 20261128000000, concurrently.
 * Installs that ran this migration before that one existed built it here, in this transaction,
 * and keep it: the later migration finds it and leaves it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table core_audit_event add column patient_ids text[] null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table core_audit_event drop column patient_ids');
}
