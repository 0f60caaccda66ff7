/**
 * First run: with the base module installed and no user at all, nobody could sign in to create
 * one over HTTP. Start-up then creates `admin` with a random password and shows it once, on the
 * console only (never in the structured log, which collectors keep); the database keeps its
 * scrypt hash alone.
 */
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { isWardError } from '../errors/ward-error.ts';
import { RUNNING } from './installed.ts';
import { hashPassword, randomPassword } from './password.ts';
import { baseState, createUser } from './users.ts';

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
  const base = await baseState(knex);
  if (base === undefined || !RUNNING.has(base)) return null;
  if ((await knex('base_user').first('id')) !== undefined) return null;
  const password = randomPassword();
  const passwordHash = await hashPassword(password);
  try {
    await createUser(knex, { username: FIRST_ADMIN, passwordHash, roles: ['admin'] });
  } catch (error) {
    // Another replica created it first; that one printed the password.
    if (isWardError(error) && error.code === 'user_exists') return null;
    throw error;
  }
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
