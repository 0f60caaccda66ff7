import type { Knex } from 'knex';
import { LOCK_KEYS } from '../../lock.ts';

/**
 * `core_audit_append(…)`: appends rows to the audit trail in one statement, so a read's record
 * costs one round trip and, outside a transaction, one implicit transaction (src/audit/record.ts).
 * It takes the chain's turn (the transaction-scoped advisory lock LOCK_KEYS.audit, held until the
 * transaction ends), then reads the chain's head and the clock, then hashes and inserts the rows in
 * order. Each statement of a volatile PL/pgSQL function takes a fresh snapshot under READ
 * COMMITTED, so the head is read after the lock is held and sees the previous holder's commit.
 *
 * The caller gives each row's canonical text without its time (`heads[i] || at || tails[i]` is the
 * text, src/audit/chain.ts's canonicalParts), so the hash stays the one `ward audit verify`
 * computes: sha256(previous hash || text), the time as JavaScript's toISOString writes it.
 * `patient_lists[i]` is a JSON array of text, or null.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function core_audit_append(
      p_actors text[], p_user_ids integer[], p_actions text[], p_modules text[], p_kinds text[],
      p_record_ids text[], p_patient_ids text[], p_patient_lists text[], p_clients text[],
      p_outcomes text[], p_details text[], p_heads text[], p_tails text[]
    ) returns void language plpgsql volatile as $$
    declare
      v_prev bytea;
      v_at timestamptz;
      v_iso text;
      v_hashes bytea[] := '{}';
    begin
      perform pg_advisory_xact_lock(${LOCK_KEYS.audit});
      select e.hash into v_prev from core_audit_event e order by e.id desc limit 1;
      v_prev := coalesce(v_prev, ''::bytea);
      -- Milliseconds, as the verifier's JavaScript dates hold them.
      v_at := date_trunc('milliseconds', clock_timestamp());
      v_iso := to_char(v_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      for i in 1 .. coalesce(array_length(p_heads, 1), 0) loop
        v_prev := sha256(v_prev || convert_to(p_heads[i] || v_iso || p_tails[i], 'UTF8'));
        v_hashes := v_hashes || v_prev;
      end loop;
      insert into core_audit_event
             (at, actor, user_id, action, module, kind, record_id, patient_id, patient_ids, client,
              outcome, detail, hash)
      select v_at, u.actor, u.user_id, u.action, u.module, u.kind, u.record_id, u.patient_id,
             case when u.patients is null then null
                  else array(select p.value from jsonb_array_elements_text(u.patients::jsonb)
                                    with ordinality as p(value, ord) order by p.ord) end,
             u.client, u.outcome, u.detail::jsonb, u.hash
        from unnest(p_actors, p_user_ids, p_actions, p_modules, p_kinds, p_record_ids, p_patient_ids,
                    p_patient_lists, p_clients, p_outcomes, p_details, v_hashes)
             with ordinality as u(actor, user_id, action, module, kind, record_id, patient_id,
                                  patients, client, outcome, detail, hash, ord)
       order by u.ord;
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop function core_audit_append(text[], integer[], text[], text[], text[], text[], text[], text[], text[], text[], text[], text[], text[])',
  );
}
