/**
 * Usernames and role names, checked before anything reaches the database. Usernames are lowercase
 * so that `Alice` and `alice` can never be two accounts; sign-in lowercases what is typed.
 */
import { WardError } from '../errors/ward-error.ts';

export const USERNAME = /^[a-z0-9][a-z0-9._@+-]{0,149}$/;
export const ROLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export function assertUsername(value: string): string {
  if (USERNAME.test(value)) return value;
  throw new WardError(
    'invalid_username',
    `${JSON.stringify(value)} is not a valid username`,
    'usernames are 1 to 150 lowercase letters, digits and . _ @ + -, starting with a letter or digit',
    { exitCode: 2 },
  );
}

export function assertRoleName(value: string): string {
  if (ROLE_NAME.test(value)) return value;
  throw new WardError(
    'invalid_role_name',
    `${JSON.stringify(value)} is not a valid role name`,
    'role names are lowercase letters, digits and _, starting with a letter, at most 63 characters',
    { exitCode: 2 },
  );
}
