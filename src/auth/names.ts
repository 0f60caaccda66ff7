/**
 * Usernames and role names, checked before anything reaches the database. Usernames are lowercase
 * so that `Alice` and `alice` can never be two accounts; sign-in lowercases what is typed. Both are
 * taken in Unicode NFC, as every text Ward stores is, and a refusal names the invisible character
 * (a zero-width space pasted from a chat, say) that would otherwise make the value look valid.
 */
import { WardError } from '../errors/ward-error.ts';
import { identifierProblem } from '../text/text.ts';

export const USERNAME = /^[a-z0-9][a-z0-9._@+-]{0,149}$/;
export const ROLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** `"<value>" is not a valid <what>`, and which invisible character it holds, if any. */
function invalid(value: string, what: string): string {
  const problem = identifierProblem(value);
  return `${JSON.stringify(value)} is not a valid ${what}${problem === null ? '' : `: it ${problem.message}`}`;
}

export function assertUsername(value: string): string {
  const username = value.normalize('NFC');
  if (USERNAME.test(username)) return username;
  throw new WardError(
    'invalid_username',
    invalid(value, 'username'),
    'usernames are 1 to 150 lowercase letters, digits and . _ @ + -, starting with a letter or digit',
    { exitCode: 2 },
  );
}

export function assertRoleName(value: string): string {
  const role = value.normalize('NFC');
  if (ROLE_NAME.test(role)) return role;
  throw new WardError(
    'invalid_role_name',
    invalid(value, 'role name'),
    'role names are lowercase letters, digits and _, starting with a letter, at most 63 characters',
    { exitCode: 2 },
  );
}
