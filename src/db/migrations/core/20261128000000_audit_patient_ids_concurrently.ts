import type { Knex } from 'knex';

/**
 * The GIN index on `core_audit_event.patient_ids` (see 20261127002100), built CONCURRENTLY: on a
 * clinic's large trail a plain build would block every write to the trail, and so every audited
 * request, until it ends. A concurrent build cannot run in a transaction, so this migration runs
 * outside one (`config`), in a batch of its own (see migrateCore). Installs that built the index
 * in 20261127002100 already have it: `if not exists` leaves it as it is. A concurrent build
 * interrupted part way (a crash, a cancel) leaves an invalid index of that name, which PostgreSQL
 * keeps updating but never reads: it is dropped and built again.
 */
export const config = { transaction: false };

const INDEX = 'core_audit_event_patients';

export async function up(knex: Knex): Promise<void> {
  const { rows } = (await knex.raw(
    `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = ? and pg_table_is_visible(c.oid)`,
    [INDEX],
  )) as { rows: Array<{ valid: boolean }> };
  if (rows[0]?.valid === false) await knex.raw(`drop index concurrently ${INDEX}`);
  await knex.raw(
    `create index concurrently if not exists ${INDEX} on core_audit_event using gin (patient_ids)
      where patient_ids is not null`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index concurrently if exists ${INDEX}`);
}
