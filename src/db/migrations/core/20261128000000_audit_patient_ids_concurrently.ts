import type { Knex } from 'knex';
import { createIndexConcurrently } from '../../concurrent-index.ts';

/**
 * The GIN index on `core_audit_event.patient_ids` (see 20261127002100), built CONCURRENTLY: on a
 * clinic's large trail a plain build would block every write to the trail, and so every audited
 * request, until it ends. A concurrent build cannot run in a transaction, so this migration runs
 * outside one (`config`), in a batch of its own (see migrateCore). Installs that built the index
 * in 20261127002100 already have it: it is left as it is (createIndexConcurrently).
 */
export const config = { transaction: false };

const INDEX = 'core_audit_event_patients';

export async function up(knex: Knex): Promise<void> {
  await createIndexConcurrently(
    knex,
    INDEX,
    'on core_audit_event using gin (patient_ids) where patient_ids is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
}
