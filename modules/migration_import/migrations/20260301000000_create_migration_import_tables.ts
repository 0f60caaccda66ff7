import type { Knex } from 'knex';

const STATES = [
  'created',
  'validating',
  'validated',
  'invalid',
  'executing',
  'succeeded',
  'partially_succeeded',
  'failed',
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('migration_import_job', (table) => {
    table.increments('id');
    table.string('source_system', 63).notNullable();
    table.string('format', 40).notNullable();
    table.string('state', 20).notNullable().defaultTo('created');
    table.bigInteger('source_bytes').notNullable();
    table.specificType('source_sha256', 'char(64)').notNullable();
    // Validation: records per kind and warnings per severity. Execute: per kind, what happened.
    table.jsonb('counts').notNullable().defaultTo('{}');
    table.jsonb('results').notNullable().defaultTo('{}');
    table.integer('rows_total').notNullable().defaultTo(0);
    // The checkpoint: records of the current execute run committed so far, so a resumed run skips them.
    table.integer('rows_done').notNullable().defaultTo(0);
    // Liveness of the background run: a worker renews its lease; an expired lease means nobody runs it.
    table.string('worker_id', 100);
    table.timestamp('lease_expires_at', { useTz: true });
    table.text('error');
    // No foreign key: a job's history outlives the account that started it.
    table.integer('created_by_id');
    table.string('created_by', 100).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('validated_at', { useTz: true });
    table.timestamp('started_at', { useTz: true });
    table.timestamp('finished_at', { useTz: true });
    table.check(
      `state in (${STATES.map((state) => `'${state}'`).join(', ')})`,
      {},
      'migration_import_job_state',
    );
    table.index(['state', 'lease_expires_at']);
  });

  await knex.schema.createTable('migration_import_warning', (table) => {
    table.bigIncrements('id');
    table
      .integer('job_id')
      .notNullable()
      .references('id')
      .inTable('migration_import_job')
      .onDelete('CASCADE');
    table.string('phase', 10).notNullable();
    table.integer('row').notNullable();
    table.text('field').notNullable();
    table.string('code', 40).notNullable();
    table.string('severity', 10).notNullable();
    table.text('message').notNullable();
    table.check(`severity in ('error', 'warning', 'info')`, {}, 'migration_import_warning_severity');
    table.check(`phase in ('validate', 'execute')`, {}, 'migration_import_warning_phase');
    // Pages are read in source order, all of a job's warnings or one severity's.
    table.index(['job_id', 'row', 'id']);
    table.index(['job_id', 'severity', 'row', 'id']);
  });

  await knex.schema.createTable('migration_import_binary', (table) => {
    table.increments('id');
    table
      .integer('job_id')
      .notNullable()
      .references('id')
      .inTable('migration_import_job')
      .onDelete('CASCADE');
    table.text('ref').notNullable();
    table.specificType('sha256', 'char(64)').notNullable();
    // FHIR attachments carry a SHA-1: kept so execute can check the document against its binary.
    table.specificType('sha1', 'char(40)').notNullable();
    table.bigInteger('size').notNullable();
    table.string('content_type', 255);
    table.string('created_by', 100).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['job_id', 'ref']);
  });

  await knex.schema.createTable('migration_import_source_map', (table) => {
    table.string('source_system', 63).notNullable();
    table.string('kind', 20).notNullable();
    table.text('source_id').notNullable();
    // No foreign key: it points into patients, appointments or documents depending on `kind`.
    table.integer('ward_id').notNullable();
    table.integer('job_id').references('id').inTable('migration_import_job').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['source_system', 'kind', 'source_id']);
    // The reverse lookup: which source record a Ward record came from, for previews of updates.
    table.index(['source_system', 'kind', 'ward_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('migration_import_source_map');
  await knex.schema.dropTable('migration_import_binary');
  await knex.schema.dropTable('migration_import_warning');
  await knex.schema.dropTable('migration_import_job');
}
