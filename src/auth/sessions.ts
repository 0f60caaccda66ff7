/**
 * Sign-in and sign-out. A session lasts SESSION_TTL_MS from sign-in, whatever happens in between;
 * its secret is the cookie value and the bearer token handed back at sign-in.
 */
import type { Knex } from 'knex';
import { hashPassword, needsRehash, verifyPassword } from './password.ts';
import { hashSecret, newCsrfSecret, newSecret } from './tokens.ts';
import { WardError } from '../controller/errors.ts';
import { assertEnabled, findUser, type UserRow } from './users.ts';

export const SESSION_TTL_MS = 12 * 3_600_000;

export interface NewSession {
  secret: string;
  csrfSecret: string;
  expiresAt: Date;
}

/**
 * The user when `password` is theirs, else null: an unknown user, a service account without a
 * password and a wrong password are indistinguishable, in answer and in time.
 */
export async function checkPassword(knex: Knex, username: string, password: string): Promise<UserRow | null> {
  const user = await findUser(knex, username);
  const stored = user?.password_hash ?? null;
  if (!(await verifyPassword(password, stored)) || user === undefined || stored === null) return null;
  if (needsRehash(stored))
    // Only over the hash just checked: a `users disable` meanwhile must not be undone.
    await knex('base_user')
      .where({ id: user.id, password_hash: stored })
      .update({ password_hash: await hashPassword(password) });
  return user;
}

export async function createSession(knex: Knex, userId: number, now = Date.now()): Promise<NewSession> {
  const session = {
    secret: newSecret('session'),
    csrfSecret: newCsrfSecret(),
    expiresAt: new Date(now + SESSION_TTL_MS),
  };
  await knex.transaction(async (trx) => {
    // Locks the user row against `users disable`, which ends sessions: one disabled while the
    // password was being checked gets none.
    const user = (await trx('base_user')
      .where({ id: userId })
      .forUpdate()
      .first('id', 'username', 'password_hash')) as UserRow | undefined;
    if (user === undefined)
      throw new WardError('unknown_user', 'the user no longer exists', 'sign in as another user');
    assertEnabled(user);
    // Expired sessions of this user go now; nothing else would ever delete them.
    await trx('base_session').where({ user_id: userId }).andWhere('expires_at', '<=', new Date(now)).del();
    await trx('base_session').insert({
      id_hash: hashSecret(session.secret),
      user_id: userId,
      csrf_secret: session.csrfSecret,
      expires_at: session.expiresAt,
    });
  });
  return session;
}

export async function endSession(knex: Knex, secret: string): Promise<void> {
  await knex('base_session')
    .where({ id_hash: hashSecret(secret) })
    .del();
}
