/**
 * The deployment's grants file (WARD_GRANTS_FILE, default `<storage>/grants.json`): roles and the
 * permissions it adds to them, so a tenant widens access (a migration-operator role, say) without
 * editing vendored module code. Read once at start-up, like the modules: edit it, then restart.
 *
 *   { "roles": { "migration_operator": ["migration_import.job.read", "migration_import.*"] } }
 */
import { readFile } from 'node:fs/promises';
import { describeJsonError } from '../errors/json-error.ts';
import { WardError } from '../errors/ward-error.ts';
import { ROLE_NAME } from './names.ts';
import type { Grants } from './permissions.ts';

/** `*`, `<module>.*`, or a permission name. */
const GRANT = /^(?:\*|[a-z][a-z0-9_]*\.\*|[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+)$/;
const EXAMPLE = '{"roles": {"migration_operator": ["migration_import.job.read", "migration_import.*"]}}';

export interface GrantsFile {
  path: string;
  /** Set explicitly (WARD_GRANTS_FILE): then a missing file is an error, not an empty grant list. */
  required: boolean;
}

export async function readGrants(file: GrantsFile): Promise<Grants> {
  let text: string;
  try {
    text = await readFile(file.path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !file.required) return {};
    throw new WardError(
      'grants_file_unreadable',
      `cannot read the grants file ${file.path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      'fix WARD_GRANTS_FILE or the file permissions, or unset WARD_GRANTS_FILE to use <storage>/grants.json when it exists',
      { cause: error },
    );
  }
  return parseGrants(text, file.path);
}

/**
 * Pure: the file's text to grants, or a WardError naming the file, the JSON path (or, for a JSON
 * syntax error, the line and column) and the fix.
 */
export function parseGrants(text: string, file: string): Grants {
  const refuse = (problem: string) =>
    new WardError('invalid_grants_file', `${file}: ${problem}`, `fix the file; its shape is ${EXAMPLE}`);
  const invalid = (where: string, problem: string) => refuse(`${where} ${problem}`);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw refuse(describeJsonError(text, error as Error));
  }
  if (!isObject(document)) throw invalid('/', 'must be an object with a "roles" field');
  const unknown = Object.keys(document).filter((key) => key !== 'roles' && key !== '$schema');
  if (unknown.length > 0) throw invalid(`/${unknown[0]}`, 'is not a known field; the only field is "roles"');
  const roles = document.roles;
  if (!isObject(roles)) throw invalid('/roles', 'must be an object mapping role names to lists of grants');
  const grants: Record<string, string[]> = {};
  for (const [role, list] of Object.entries(roles)) {
    if (!ROLE_NAME.test(role))
      throw invalid(
        `/roles/${role}`,
        'is not a valid role name: lowercase letters, digits and _, starting with a letter',
      );
    if (!Array.isArray(list) || !list.every((grant) => typeof grant === 'string'))
      throw invalid(`/roles/${role}`, 'must be a list of strings');
    list.forEach((grant: string, index) => {
      if (!GRANT.test(grant))
        throw invalid(
          `/roles/${role}/${index}`,
          `${JSON.stringify(grant)} is not a grant: use a permission name such as patients.patient.read, <module>.* or *`,
        );
    });
    grants[role] = [...new Set(list as string[])];
  }
  return grants;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
