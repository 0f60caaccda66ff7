/**
 * Building an index on a table that stays in use, for migrations that run outside a transaction
 * (`config.transaction = false`): CONCURRENTLY, so writes go on while it builds, and safe to run
 * again after an interruption.
 */
import type { Knex } from 'knex';

/**
 * Builds index `name` (`definition` is what follows the name in CREATE INDEX) unless a valid one
 * exists. A concurrent build interrupted part way (a crash, a cancel) leaves an invalid index of
 * that name, which PostgreSQL keeps updating but never reads: it is dropped and built again.
 */
export async function createIndexConcurrently(knex: Knex, name: string, definition: string): Promise<void> {
  const { rows } = (await knex.raw(
    `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = ? and pg_table_is_visible(c.oid)`,
    [name],
  )) as { rows: Array<{ valid: boolean }> };
  if (rows[0]?.valid === false) await knex.raw(`drop index concurrently ${name}`);
  await knex.raw(`create index concurrently if not exists ${name} ${definition}`);
}
