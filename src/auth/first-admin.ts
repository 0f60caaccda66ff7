/**
 * First run: with the base module installed and no user at all, nobody could sign in to create
 * one over HTTP. Start-up then creates `admin` with a random password and shows it once, on the
 * console only (never in the structured log, which collectors keep); the database keeps its
 * scrypt hash alone.
 */
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { AUTH_MODULE, RUNNING } from './installed.ts';
import { hashPassword, randomPassword } from './password.ts';
import { roleId } from './users.ts';

export const FIRST_ADMIN = 'admin';

export interface FirstAdmin {
  username: string;
}

/**
 * Creates the first admin when the base module is installed and no user exists; returns it, or
 * null when there was nothing to do. Two replicas starting together create one admin: the loser
 * of the insert race finds the name taken and prints nothing.
 */
export async function ensureFirstAdmin(
  knex: Knex,
  logger: Logger,
  print: (text: string) => void = (text) => process.stderr.write(text),
): Promise<FirstAdmin | null> {
  const base = (await knex('core_module').where({ name: AUTH_MODULE }).first('state')) as
    { state: string } | undefined;
  if (base === undefined || !RUNNING.has(base.state)) return null;
  if ((await knex('base_user').first('id')) !== undefined) return null;
  const password = randomPassword();
  const passwordHash = await hashPassword(password);
  const created = await knex.transaction(async (trx) => {
    const [row] = (await trx('base_user')
      .insert({ username: FIRST_ADMIN, password_hash: passwordHash, password_changed_at: trx.fn.now() })
      .onConflict('username')
      .ignore()
      .returning('id')) as Array<{ id: number }>;
    if (row === undefined) return false;
    await trx('base_user_role').insert({ user_id: row.id, role_id: await roleId(trx, 'admin') });
    return true;
  });
  if (!created) return null;
  logger.info({ username: FIRST_ADMIN }, 'first run: created the admin user (its password was printed once)');
  print(
    [
      '',
      `Ward created the first user, "${FIRST_ADMIN}", with the admin role. Its password, shown this once:`,
      '',
      `    ${password}`,
      '',
      'Sign in: POST /api/v1/auth/login {"username": "admin", "password": "<the password>"}',
      'Then choose your own: ward users set-password admin --password-stdin',
      'Ward keeps only a hash of it; if it is lost, set a new one with the same command.',
      '',
      '',
    ].join('\n'),
  );
  return { username: FIRST_ADMIN };
}
