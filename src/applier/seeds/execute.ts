/**
 * Runs a raw statement so that a failure reads as the database's own message: knex prefixes it
 * with the statement, which for a seed batch holds thousands of values.
 */
import type { Knex } from 'knex';

/** Bindings as node-postgres takes them: arrays (null elements included) become PostgreSQL arrays. */
export type Binding = string | number | boolean | null | ReadonlyArray<string | number | boolean | null>;

/** The error is otherwise the driver's own, with its `code` and `detail`. */
export async function execute<T>(knex: Knex, sql: string, bindings: readonly Binding[]): Promise<T> {
  const query = knex.raw(sql, bindings as readonly Knex.RawBinding[]);
  try {
    return (await query) as T;
  } catch (error) {
    const prefix = `${query.toSQL().toNative().sql} - `;
    if (error instanceof Error && error.message.startsWith(prefix))
      error.message = error.message.slice(prefix.length);
    throw error;
  }
}
