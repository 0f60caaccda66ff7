import type { Knex } from 'knex';
import { LOCK_KEYS } from '../../lock.ts';

/**
 * `core_audit_append(texts)` takes the place of the one taking an array per column: the writer
 * sends each row's canonical text without its time, one per line (src/audit/record.ts), and the
 * function reads the columns back from that JSON. Serialising thirteen PostgreSQL arrays cost an
 * audited read more than the rest of its record; the canonical text, needed anyway for the hash,
 * already holds every column. Otherwise it works as before: the chain's turn (the advisory lock
 * LOCK_KEYS.audit, held until the transaction ends), then the head and the clock, then the hashes,
 * sha256(previous hash || text with the time), the time as JavaScript's toISOString writes it.
 *
 * A text is `[form,"",actor,user id,action,module,kind,record id,patient id,client,outcome,detail]`
 * and, in form 2, the patients a list showed after `detail` (src/audit/chain.ts); the time goes
 * between the quotes after the form's one digit. A JSON null `detail` is stored as SQL null, as
 * the writer never stores a JSON null there.
 *
 * The function taking an array per column stays beside it (the two signatures coexist): a backend
 * of the version before, still serving while a new one starts and migrates (a rolling upgrade),
 * keeps recording with it, in the same chain under the same lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function core_audit_append(p_texts text) returns void language plpgsql volatile as $$
    declare
      v_texts text[] := string_to_array(p_texts, E'\\n');
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
      for i in 1 .. coalesce(array_length(v_texts, 1), 0) loop
        v_prev := sha256(v_prev || convert_to(
          substr(v_texts[i], 1, 4) || v_iso || substr(v_texts[i], 5), 'UTF8'));
        v_hashes := v_hashes || v_prev;
      end loop;
      insert into core_audit_event
             (at, actor, user_id, action, module, kind, record_id, patient_id, patient_ids, client,
              outcome, detail, hash)
      select v_at, r.j->>2, (r.j->>3)::integer, r.j->>4, r.j->>5, r.j->>6, r.j->>7, r.j->>8,
             case when jsonb_array_length(r.j) < 13 then null
                  else array(select p.value from jsonb_array_elements_text(r.j->12)
                                    with ordinality as p(value, ord) order by p.ord) end,
             r.j->>9, r.j->>10, nullif(r.j->11, 'null'::jsonb), r.hash
        -- offset 0 keeps the subquery whole: flattened, each column would parse the text again.
        from (select u.text::jsonb as j, u.hash, u.ord
                from unnest(v_texts, v_hashes) with ordinality as u(text, hash, ord) offset 0) r
       order by r.ord;
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function core_audit_append(text)');
}
