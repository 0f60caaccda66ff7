import type { Knex } from 'knex';

/**
 * Fewer index entries per audited read, the trail's most frequent row. A read's row went into
 * five btrees (the key, its patient, its user, its action, its time); now into three:
 *
 * - `(action, id desc)` leaves out `record.read`. Reads are most of the trail, so a page of reads
 *   is found by walking the trail newest first, while a rarer action still has its index (the
 *   query names `action <> 'record.read'` so that PostgreSQL may use it: src/audit/query.ts).
 * - `at` is a BRIN index: rows arrive in time order, so block ranges summarise it in a few pages,
 *   and the retention purge, which reads every row older than its cutoff, still finds them by
 *   range. Pages are read newest first by `id`, never through `at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index core_audit_event_action');
  await knex.raw(
    `create index core_audit_event_action on core_audit_event (action, id desc) where action <> 'record.read'`,
  );
  await knex.raw('drop index core_audit_event_at');
  await knex.raw('create index core_audit_event_at on core_audit_event using brin (at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index core_audit_event_action');
  await knex.raw('create index core_audit_event_action on core_audit_event (action, id desc)');
  await knex.raw('drop index core_audit_event_at');
  await knex.raw('create index core_audit_event_at on core_audit_event (at)');
}
