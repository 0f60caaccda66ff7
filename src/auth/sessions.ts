/**
 * Sign-in and sign-out. A session ends SESSION_TTL_MS after sign-in whatever happens in between,
 * and earlier when no request uses it for the idle time (authenticator.ts checks that); its secret
 * is the cookie value and the bearer token handed back at sign-in.
 */
import { appendBy, SYSTEM_BY, type By } from '../audit/record.ts';
import { actingTransaction, userActor } from '../db/acting.ts';
import type { Knex } from 'knex';
import { hashPassword, needsRehash, verifyPassword } from './password.ts';
import { hashSecret, newCsrfSecret, newSecret } from './tokens.ts';
import { findUser, isDisabled, lockUser, type UserRow } from './users.ts';

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

/**
 * A new session for the user, or null when the user was disabled (or deleted) while the password
 * was being checked: the sign-in then fails like any other.
 */
export async function createSession(
  knex: Knex,
  userId: number,
  options: { now?: number; idleMs?: number; client?: string | null } = {},
): Promise<NewSession | null> {
  const { now = Date.now(), idleMs = SESSION_TTL_MS } = options;
  const session = {
    secret: newSecret('session'),
    csrfSecret: newCsrfSecret(),
    expiresAt: new Date(now + SESSION_TTL_MS),
  };
  const idHash = hashSecret(session.secret);
  // The session's own actor: the sign-in is the first thing it does.
  const actor = userActor(userId, { kind: 'session', ref: idHash.toString('hex').slice(0, 16) });
  return actingTransaction(knex, actor, async (trx) => {
    const user = await lockUser(trx, userId);
    if (user === undefined || isDisabled(user.password_hash)) return null;
    // Expired and idle sessions of this user go now; nothing else would ever delete them.
    await trx('base_session')
      .where({ user_id: userId })
      .andWhere((query) =>
        query.where('expires_at', '<=', new Date(now)).orWhere('last_seen_at', '<=', new Date(now - idleMs)),
      )
      .del();
    await trx('base_session').insert({
      id_hash: hashSecret(session.secret),
      user_id: userId,
      csrf_secret: session.csrfSecret,
      expires_at: session.expiresAt,
      // The backend's clock, as the idle check compares it with: the database's may differ.
      last_seen_at: new Date(now),
    });
    await appendBy(trx, { actor, client: options.client ?? null }, [
      { action: 'auth.sign_in', kind: 'user', recordId: userId, detail: { username: user.username } },
    ]);
    return session;
  });
}

/** Ends the session with this secret, recorded as `by` (the session's own actor when it signs out). */
export async function endSession(knex: Knex, secret: string, by: By = SYSTEM_BY): Promise<void> {
  await actingTransaction(knex, by.actor, async (trx) => {
    const ended = (await trx('base_session')
      .where({ id_hash: hashSecret(secret) })
      .del()
      .returning('user_id')) as Array<{ user_id: number }>;
    if (ended.length > 0)
      await appendBy(trx, by, [{ action: 'auth.sign_out', kind: 'user', recordId: ended[0]!.user_id }]);
  });
}
