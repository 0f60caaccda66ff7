import type { Knex } from 'knex';

/**
 * Every finished execute run of a job, oldest first: `{ run, startedAt, finishedAt, state,
 * results, error }`. A job executed again used to keep only its latest run's counts; jobs
 * executed before this migration start their history with an entry for that latest run.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('migration_import_job', (table) => {
    table.jsonb('runs').notNullable().defaultTo('[]');
  });
  await knex.raw(
    `update migration_import_job
        set runs = jsonb_build_array(jsonb_build_object(
              'run', 1, 'startedAt', started_at, 'finishedAt', finished_at,
              'state', state, 'results', results, 'error', error))
      where state in ('succeeded', 'partially_succeeded', 'failed')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('migration_import_job', (table) => {
    table.dropColumn('runs');
  });
}
