import type { Knex } from 'knex';
import { createIndexConcurrently } from '../../concurrent-index.ts';

/**
 * Fewer index entries per audited read, the trail's most frequent row. A read's row went into
 * five btrees (the key, its patient, its user, its action, its time); now into three:
 *
 * - The action index leaves out `record.read`. Reads are most of the trail, so a page of reads
 *   is found by walking the trail newest first, while a rarer action still has its index (the
 *   query names `action <> 'record.read'` so that PostgreSQL may use it: src/audit/query.ts).
 * - `at` is a BRIN index: rows arrive in time order, so block ranges summarise it in a few pages,
 *   so it costs a read's row almost nothing. No query needs a btree on it: pages are read newest
 *   first by `id`, and the retention purge finds its last row by reading the trail by `id` before
 *   it takes the chain's turn (src/audit/retention.ts).
 *
 * Built CONCURRENTLY under new names and only then are the old ones dropped, outside a
 * transaction (`config`, a batch of its own: see migrateCore), so that on a clinic's large trail
 * audited requests keep being recorded while the indexes build. Each step may be run again after
 * an interruption (createIndexConcurrently).
 */
export const config = { transaction: false };

const NEW_INDEXES = [
  {
    name: 'core_audit_event_action_not_read',
    definition: `on core_audit_event (action, id desc) where action <> 'record.read'`,
  },
  { name: 'core_audit_event_at_brin', definition: 'on core_audit_event using brin (at)' },
] as const;

const OLD_INDEXES = ['core_audit_event_action', 'core_audit_event_at'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const { name, definition } of NEW_INDEXES) await createIndexConcurrently(knex, name, definition);
  for (const name of OLD_INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
}

export async function down(knex: Knex): Promise<void> {
  await createIndexConcurrently(knex, 'core_audit_event_action', 'on core_audit_event (action, id desc)');
  await createIndexConcurrently(knex, 'core_audit_event_at', 'on core_audit_event (at)');
  for (const { name } of NEW_INDEXES) await knex.raw(`drop index concurrently if exists ${name}`);
}
