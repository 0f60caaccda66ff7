import type { Knex } from 'knex';

/**
 * The audit trail: one append-only row per recorded action, in chain order (`id`). `hash` is
 * sha256 of the previous row's hash and this row's canonical text (src/audit/chain.ts), so an
 * edit or a deletion breaks the chain. The indexes serve the questions the trail answers with
 * keyset pagination on `id desc`: every access to a patient, everything a user did, every action
 * of a kind, and a time range.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table core_audit_event (
      id bigint generated always as identity primary key,
      at timestamptz not null default clock_timestamp(),
      actor text not null,
      user_id integer null,
      action text not null,
      module text null,
      kind text null,
      record_id text null,
      patient_id text null,
      client text null,
      outcome text not null,
      detail jsonb null,
      hash bytea not null
    )
  `);
  await knex.raw(
    'create index core_audit_event_patient on core_audit_event (patient_id, id desc) where patient_id is not null',
  );
  await knex.raw(
    'create index core_audit_event_user on core_audit_event (user_id, id desc) where user_id is not null',
  );
  await knex.raw('create index core_audit_event_action on core_audit_event (action, id desc)');
  await knex.raw('create index core_audit_event_at on core_audit_event (at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('core_audit_event');
}
