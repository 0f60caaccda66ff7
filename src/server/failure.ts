/**
 * How a command that failed for a reason Ward can explain ends, on the oclif and the lean path
 * alike, and the backend's own entry point too: a WardError, or a driver error that databaseError
 * turns into one, prints its message and hint on stderr (with --json, the error object on stdout,
 * for scripts) and sets the exit code. Anything else is a bug, which the caller leaves to oclif (or
 * rethrows) so that its stack trace is printed.
 */
import { isWardError } from '../errors/ward-error.ts';
import { databaseError } from '../db/connection.ts';

/** Each path prints in its own way: oclif applies its JSON theme, the lean path has none. */
export interface FailureOutput {
  json(value: unknown): void;
  stderr(text: string): void;
}

/** A backend process's output: no JSON mode, a line on stderr. */
export const BACKEND_OUTPUT: FailureOutput = {
  json: () => undefined,
  stderr: (text) => process.stderr.write(`${text}\n`),
};

/** The exit code, after printing; null, having printed nothing, for an error Ward cannot explain. */
export function reportFailure(error: unknown, json: boolean, output: FailureOutput): number | null {
  const wardError = databaseError(error);
  if (!isWardError(wardError)) return null;
  if (json) output.json({ error: wardError.toJSON() });
  else output.stderr(`error: ${wardError.message}\nhint: ${wardError.hint}`);
  return wardError.exitCode;
}

/** The settings files' ignored lines (src/config.ts), on stderr: never mixed into --json output. */
export function reportWarnings(warnings: readonly string[], stderr: (text: string) => void): void {
  for (const warning of warnings) stderr(`warning: ${warning}`);
}
