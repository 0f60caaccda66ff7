/**
 * Commands under `ward users` and `ward tokens`: they need the base module installed (its tables
 * hold users and tokens), check roles against what installed modules and the grants file define,
 * and read passwords from stdin only, so no password lands in shell history or `ps`.
 */
import { Args, Flags } from '@oclif/core';
import type { Knex } from 'knex';
import { readGrants } from '../auth/grants.ts';
import { installedModules } from '../auth/installed.ts';
import { assertRoleName, assertUsername } from '../auth/names.ts';
import { newPasswordProblem } from '../auth/password-policy.ts';
import { buildPermissionMap, knownRoles } from '../auth/permissions.ts';
import { assertBaseInstalled } from '../auth/users.ts';
import { WardError } from '../errors/ward-error.ts';
import { readModuleRows } from '../db/modules.ts';
import { ModuleCommand } from './module-command.ts';

export const usernameArg = Args.string({
  name: 'username',
  description: 'lowercase letters, digits and . _ @ + -',
  required: true,
  parse: async (input) => assertUsername(input),
});

export const roleArg = Args.string({
  name: 'role',
  description: 'a role that an installed module or the grants file defines',
  required: true,
  parse: async (input) => assertRoleName(input),
});

export const passwordStdinFlag = Flags.boolean({
  description: 'read the password from stdin (one line; the trailing newline is dropped)',
  default: false,
});

export abstract class AuthCommand extends ModuleCommand {
  /** The database, once the base module is known to be installed. */
  protected async authDb(): Promise<Knex> {
    const knex = await this.db();
    await assertBaseInstalled(knex);
    return knex;
  }

  /**
   * Refuses roles nothing grants anything to: almost always a typo, and they would grant nothing.
   * The first unknown one is named. No role, nothing to read.
   */
  protected async assertKnownRoles(roles: readonly string[]): Promise<void> {
    if (roles.length === 0) return;
    const [inventory, rows, grants] = await Promise.all([
      this.inventory(),
      this.db().then(readModuleRows),
      readGrants(this.settings.grantsFile),
    ]);
    const modules = installedModules(inventory, rows).map(({ module }) => ({
      name: module.name,
      manifest: module.manifest,
    }));
    const known = knownRoles(buildPermissionMap(modules, grants));
    const role = roles.find((candidate) => !known.includes(candidate));
    if (role === undefined) return;
    throw new WardError(
      'unknown_role',
      `no installed module and no grants file defines the role ${role}`,
      `known roles: ${known.length === 0 ? 'none' : known.join(', ')}; define new roles in ${this.settings.grantsFile.path} (WARD_GRANTS_FILE)`,
    );
  }

  /** The password on stdin, checked as a new password of `username`. */
  protected async readPassword(username: string): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
    const password = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    if (password === '')
      throw new WardError(
        'missing_password',
        'stdin held no password',
        'pipe it in, for example: printf \'%s\' "$PASSWORD" | ward users set-password alice --password-stdin',
        { exitCode: 2 },
      );
    const problem = await newPasswordProblem(password, username);
    if (problem !== null) throw new WardError(problem.code, problem.message, problem.hint, { exitCode: 1 });
    return password;
  }
}
