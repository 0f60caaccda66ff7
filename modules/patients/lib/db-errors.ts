/**
 * PostgreSQL errors the clinic modules turn into answers. Constraints, not prior SELECTs, decide
 * (a duplicate MRN, an unknown patient), so two concurrent requests cannot both pass a check; the
 * constraint's name says which field was wrong.
 */

/** unique_violation: a row with the same key exists. */
export const UNIQUE_VIOLATION = '23505';

export interface ConstraintError {
  code: string;
  constraint: string;
}

/** The SQLSTATE and constraint name of a constraint failure from node-postgres, or null. */
export function constraintError(error: unknown): ConstraintError | null {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (typeof code !== 'string' || typeof constraint !== 'string') return null;
  return { code, constraint };
}
