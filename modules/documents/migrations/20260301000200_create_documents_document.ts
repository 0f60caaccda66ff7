import type { Knex } from 'knex';

/**
 * One row per file attached to a patient. The bytes live in storage under their SHA-256 (see
 * lib/blob-store.ts), so rows with the same content share one file.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('documents_document', (table) => {
    table.increments('id');
    // Restrict: deleting a patient must not silently drop their records.
    table
      .integer('patient_id')
      .notNullable()
      .references('id')
      .inTable('patients_patient')
      .onDelete('RESTRICT');
    table.text('title').notNullable();
    table.text('content_type').notNullable();
    table.specificType('sha256', 'char(64)').notNullable();
    table.bigInteger('size').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['patient_id', 'id']);
    // Finding the rows of one file: duplicate uploads, and imports matching binaries to documents.
    table.index('sha256');
    table.check("sha256 ~ '^[0-9a-f]{64}$'", {}, 'documents_document_sha256_hex');
    table.check('size >= 0', {}, 'documents_document_size_not_negative');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('documents_document');
}
