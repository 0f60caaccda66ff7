import type { Knex } from 'knex';

/**
 * The audit trail (src/audit/): one append-only, hash-chained row per recorded action. Rows are
 * written by src/audit/record.ts inside the transaction of the change they record; `hash` is
 * sha256(previous row's hash || the row's canonical text), see src/audit/chain.ts.
 *
 * The application never updates or deletes a row, and a trigger holds the database to that: it
 * refuses every UPDATE, every TRUNCATE and every DELETE but the retention purge's, which sets the
 * transaction-local `ward.audit_purge` to `on` first (and records itself as an `audit.purge` row).
 * A superuser can still bypass triggers (`session_replication_role = replica`): that is what the
 * chain, `ward audit verify` and an exported checkpoint are for.
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
    )`);
  await knex.raw(
    'create index core_audit_event_patient on core_audit_event (patient_id, id desc) where patient_id is not null',
  );
  await knex.raw(
    'create index core_audit_event_user on core_audit_event (user_id, id desc) where user_id is not null',
  );
  await knex.raw('create index core_audit_event_action on core_audit_event (action, id desc)');
  await knex.raw('create index core_audit_event_at on core_audit_event (at)');
  await knex.raw(`
    create function core_audit_event_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and current_setting('ward.audit_purge', true) = 'on' then
        return old;
      end if;
      raise exception 'core_audit_event is append-only: % refused', tg_op
        using errcode = 'insufficient_privilege',
              hint = 'audit rows are never changed; retention purges them (WARD_AUDIT_RETENTION_DAYS)';
    end
    $$`);
  await knex.raw(`
    create trigger core_audit_event_no_change before update or delete on core_audit_event
    for each row execute function core_audit_event_append_only()`);
  await knex.raw(`
    create trigger core_audit_event_no_truncate before truncate on core_audit_event
    for each statement execute function core_audit_event_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table core_audit_event');
  await knex.raw('drop function core_audit_event_append_only()');
}
