/**
 * PostgreSQL errors modules turn into answers (`sdk.db`). Constraints, not prior SELECTs, decide
 * (a duplicate key, an unknown parent row), so two concurrent requests cannot both pass a check;
 * the constraint's name says which field was wrong.
 */
import type { ConstraintError } from './index.ts';

/** unique_violation: a row with the same key exists. */
export const UNIQUE_VIOLATION = '23505';
/** foreign_key_violation: the referenced row does not exist, or a referencing row still does. */
export const FOREIGN_KEY_VIOLATION = '23503';
/** not_null_violation: a required column got no value. */
export const NOT_NULL_VIOLATION = '23502';
/** check_violation: a CHECK constraint refused the row. */
export const CHECK_VIOLATION = '23514';

/** The SQLSTATE and constraint name of a constraint failure from node-postgres, or null. */
export function constraintError(error: unknown): ConstraintError | null {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (typeof code !== 'string' || typeof constraint !== 'string') return null;
  return { code, constraint };
}
