import type { Knex } from 'knex';

/**
 * When a job's source, binaries and warnings were deleted, and by whom (a username, or
 * `retention` for the background sweeper): the job row itself stays, so an auditor finds the
 * purge, and what the job did, later.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('migration_import_job', (table) => {
    table.timestamp('purged_at', { useTz: true });
    table.string('purged_by', 100);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('migration_import_job', (table) => {
    table.dropColumns('purged_at', 'purged_by');
  });
}
