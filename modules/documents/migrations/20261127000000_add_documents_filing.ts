import type { Knex } from 'knex';

/**
 * How people file documents: the original file name (null on rows stored before it was kept,
 * which download under their title), a category from a fixed list, where the document came from
 * (`upload`, or `import` for what a migration brought) with the date the source gives it, and a
 * soft delete (who and when) that an admin can undo. The file of a soft-deleted row stays stored:
 * every purge looks for rows using a file, and a soft-deleted row is still one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents_document', (table) => {
    table.text('file_name');
    table.text('category').notNullable().defaultTo('other');
    table.text('source').notNullable().defaultTo('upload');
    table.date('document_date');
    table.timestamp('deleted_at', { useTz: true });
    // The user's id, not a foreign key: deleting a user must not rewrite or block the record.
    table.integer('deleted_by');
    table.check(
      "category in ('letter', 'lab_result', 'imaging', 'referral', 'consent', 'note', 'other')",
      {},
      'documents_document_category_known',
    );
    table.check("source in ('upload', 'import')", {}, 'documents_document_source_known');
    table.check('(deleted_at is null) = (deleted_by is null)', {}, 'documents_document_deleted_both');
  });
  await knex.raw(
    'create index documents_document_patient_category_idx on documents_document (patient_id, category, id) where deleted_at is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index documents_document_patient_category_idx');
  await knex.schema.alterTable('documents_document', (table) => {
    table.dropChecks([
      'documents_document_category_known',
      'documents_document_source_known',
      'documents_document_deleted_both',
    ]);
    table.dropColumns('file_name', 'category', 'source', 'document_date', 'deleted_at', 'deleted_by');
  });
}
