import type { Knex } from 'knex';

/**
 * The import mapping gets a row per imported record, so what each row costs to write is paid a
 * million times by a large import.
 *
 * - Its foreign key to the job checked the job row once per mapping row. The writer now checks it
 *   once per batch instead, locking the job row for its transaction (see `upsertMappings`). What
 *   the key's `on delete set null` did is kept by statement triggers on the job table (for DELETE,
 *   refused under a snapshot older than the statement, and for TRUNCATE): jobs are never deleted by
 *   Ward (a purge keeps the job row), but one deleted by hand leaves no mapping pointing at it.
 * - The reverse lookup's index on (source system, kind, Ward id) let the planner answer a lookup
 *   by source id from it, reading every mapping of the source system; an index on the Ward id
 *   alone serves the reverse lookup (and a job's own appointments), is smaller to keep, and leaves
 *   the primary key the only index a lookup by source id can use.
 * - A batch takes its source system's lock and then looks up which of its patients are mapped:
 *   one call of a function instead of two round trips. The lookup runs after the lock is held (a
 *   statement of its own in the function, so it sees what the batch it waited for committed).
 */
// Under a snapshot older than the statement (repeatable read, serializable) the update would miss
// mappings a batch committed since; the foreign key refused such a delete, so this does too.
const NULL_GONE_JOBS = `
create function migration_import_source_map_job_gone() returns trigger language plpgsql as $$
begin
  if current_setting('transaction_isolation') <> 'read committed' then
    raise exception 'import jobs are deleted only at read committed isolation'
      using hint = 'delete the job in a read committed transaction, so that its mappings are released';
  end if;
  update migration_import_source_map set job_id = null
   where job_id in (select id from gone_jobs);
  return null;
end
$$`;

// TRUNCATE fires no delete trigger: the jobs' mappings are released before it.
const NULL_TRUNCATED_JOBS = `
create function migration_import_source_map_jobs_truncated() returns trigger language plpgsql as $$
begin
  update migration_import_source_map set job_id = null where job_id is not null;
  return null;
end
$$`;

const LOCKED_WARD_IDS = `
create function migration_import_locked_ward_ids(system text, record_kind text, ids text[])
returns table (source_id text, ward_id integer) language plpgsql as $$
#variable_conflict use_column
begin
  perform pg_advisory_xact_lock(hashtext('migration_import:' || system));
  return query
    select m.source_id::text, m.ward_id from unnest(ids) as s(id)
    cross join lateral (
      select t.source_id, t.ward_id from migration_import_source_map as t
      where t.source_system = system and t.kind = record_kind and t.source_id = s.id limit 1
    ) as m;
end
$$`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('migration_import_source_map', (table) => {
    table.dropForeign(['job_id']);
    table.dropIndex(['source_system', 'kind', 'ward_id']);
    table.index(['ward_id']);
  });
  await knex.raw(NULL_GONE_JOBS);
  await knex.raw(
    `create trigger migration_import_job_gone after delete on migration_import_job
       referencing old table as gone_jobs
       for each statement execute function migration_import_source_map_job_gone()`,
  );
  await knex.raw(NULL_TRUNCATED_JOBS);
  await knex.raw(
    `create trigger migration_import_jobs_truncated before truncate on migration_import_job
       for each statement execute function migration_import_source_map_jobs_truncated()`,
  );
  await knex.raw(LOCKED_WARD_IDS);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function migration_import_locked_ward_ids(text, text, text[])');
  await knex.raw('drop trigger migration_import_job_gone on migration_import_job');
  await knex.raw('drop function migration_import_source_map_job_gone()');
  await knex.raw('drop trigger migration_import_jobs_truncated on migration_import_job');
  await knex.raw('drop function migration_import_source_map_jobs_truncated()');
  // The key cannot come back over a mapping whose job is gone (one deleted by hand, say).
  await knex.raw(
    `update migration_import_source_map as m set job_id = null
      where job_id is not null and not exists (select 1 from migration_import_job as j where j.id = m.job_id)`,
  );
  await knex.schema.alterTable('migration_import_source_map', (table) => {
    table.dropIndex(['ward_id']);
    table.index(['source_system', 'kind', 'ward_id']);
    table.foreign('job_id').references('id').inTable('migration_import_job').onDelete('SET NULL');
  });
}
