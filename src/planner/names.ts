/**
 * Module names reach SQL identifiers (table prefixes, migration table names) and file paths, so
 * they are checked here and nowhere else. manifest.schema.json carries the same pattern; a test
 * keeps the two equal.
 */
import { WardError } from '../errors/ward-error.ts';

export const MODULE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

export const MODULE_NAME_HINT =
  'module names are lowercase letters, digits and _, starting with a letter, at most 63 characters';

export const isModuleName = (value: unknown): value is string =>
  typeof value === 'string' && MODULE_NAME_PATTERN.test(value);

/** Returns `value` when it is a module name; otherwise throws `invalid_module_name` (usage error). */
export function assertModuleName(value: string): string {
  if (isModuleName(value)) return value;
  throw new WardError(
    'invalid_module_name',
    `${JSON.stringify(value)} is not a valid module name`,
    MODULE_NAME_HINT,
    {
      exitCode: 2,
    },
  );
}
