/**
 * Users and their roles in the base module's tables. Every write that changes access fires the
 * `ward_auth` triggers, so running backends see it on their next request.
 */
import type { Knex } from 'knex';
import { appendBy, SYSTEM_BY, type By } from '../audit/record.ts';
import { actingTransaction } from '../db/acting.ts';
import { WardError } from '../errors/ward-error.ts';
import { AUTH_MODULE, RUNNING } from './installed.ts';

export interface UserRow {
  id: number;
  username: string;
  password_hash: string | null;
}

export interface UserSummary {
  id: number;
  username: string;
  roles: string[];
  /** False for service accounts, which only use API tokens. */
  hasPassword: boolean;
  /** Disabled users cannot sign in; their sessions ended and their API tokens were revoked. */
  disabled: boolean;
  createdAt: Date;
  passwordChangedAt: Date | null;
}

/**
 * A disabled user's password hash carries this prefix, as a locked account's does in /etc/shadow:
 * no password verifies against it, enabling restores the hash as it was, and the base module's
 * schema needs no column for it (core code that read one would break on a database whose base
 * module has not been upgraded yet). A user without a password is disabled as the prefix alone.
 */
export const DISABLED = '!';

export const isDisabled = (passwordHash: string | null): boolean =>
  passwordHash !== null && passwordHash.startsWith(DISABLED);

/** isDisabled in SQL, over a `password_hash` column (qualified as the query needs). */
export const disabledSql = (column: string): string =>
  `coalesce(starts_with(${column}, '${DISABLED}'), false)`;

/**
 * A user must choose a new password before anything else when Ward chose the one they have (the
 * first admin's, which sits in a file): such a password has no `password_changed_at`, since no
 * person set it. Every password a person sets records when. Like DISABLED, this needs no column
 * of its own, so core code works on a base module of any version. One SQL expression over the
 * user's row (qualified as the query needs: `u.`).
 */
export const mustChangePasswordSql = (user: string): string =>
  `(${user}.password_hash is not null and ${user}.password_changed_at is null)`;

/** Whether the user must change their password before anything else (see mustChangePasswordSql). */
export async function mustChangePassword(knex: Knex, userId: number): Promise<boolean> {
  const row = (await knex('base_user as u')
    .where('u.id', userId)
    .first(knex.raw(`${mustChangePasswordSql('u')} as must_change`))) as { must_change: boolean } | undefined;
  return row?.must_change === true;
}

/** The names of the roles of the user in `base_user as u`, sorted: one SQL expression. */
export const ROLES_OF_USER = `array(select r.name from base_user_role ur join base_role r on r.id = ur.role_id
                               where ur.user_id = u.id order by r.name)`;

/** Refuses, with the fix, to give a disabled user a new way in. */
export function assertEnabled(user: UserRow): void {
  if (isDisabled(user.password_hash))
    throw new WardError(
      'user_disabled',
      `user ${user.username} is disabled`,
      `enable it first with \`ward users enable ${user.username}\``,
    );
}

/**
 * The user's row, locked until the transaction ends, so that a `users disable` cannot commit
 * between a check of the row and a write that gives the user a way in (a session, a token, a new
 * password). Undefined when the user no longer exists.
 */
export async function lockUser(trx: Knex.Transaction, userId: number): Promise<UserRow | undefined> {
  return (await trx('base_user')
    .where({ id: userId })
    .forUpdate()
    .first('id', 'username', 'password_hash')) as UserRow | undefined;
}

/** The user locked and enabled, or a WardError saying why not. */
export async function lockEnabledUser(trx: Knex.Transaction, userId: number): Promise<UserRow> {
  const user = await lockUser(trx, userId);
  if (user === undefined)
    throw new WardError('unknown_user', 'the user no longer exists', 'list users with `ward users list`');
  assertEnabled(user);
  return user;
}

/** The base module's state in core_module (undefined: never scheduled); RUNNING ones have its tables. */
export async function baseState(knex: Knex): Promise<string | undefined> {
  const row = (await knex('core_module').where({ name: AUTH_MODULE }).first('state')) as
    { state: string } | undefined;
  return row?.state;
}

/** Refuses, with the fix, when the base module's tables are not there to hold users. */
export async function assertBaseInstalled(knex: Knex): Promise<void> {
  const state = await baseState(knex);
  if (state !== undefined && RUNNING.has(state)) return;
  const hint =
    state === 'to_install'
      ? 'base is scheduled: restart the backend to install it (`ward modules restart`)'
      : 'run `ward modules install base`, then restart the backend';
  throw new WardError(
    'base_not_installed',
    'the base module, which holds users and tokens, is not installed',
    hint,
  );
}

export async function findUser(knex: Knex, username: string): Promise<UserRow | undefined> {
  return (await knex('base_user').where({ username }).first('id', 'username', 'password_hash')) as
    UserRow | undefined;
}

export async function requireUser(knex: Knex, username: string): Promise<UserRow> {
  const user = await findUser(knex, username);
  if (user !== undefined) return user;
  throw new WardError('unknown_user', `there is no user ${username}`, 'list users with `ward users list`');
}

export async function roleId(knex: Knex, name: string): Promise<number> {
  await knex('base_role').insert({ name }).onConflict('name').ignore();
  const row = (await knex('base_role').where({ name }).first('id')) as { id: number };
  return row.id;
}

/** `mustChangePassword`: Ward chose the password, so the user must replace it at first sign-in. */
export async function createUser(
  knex: Knex,
  user: {
    username: string;
    passwordHash: string | null;
    roles: readonly string[];
    mustChangePassword?: boolean;
  },
  by: By = SYSTEM_BY,
): Promise<number> {
  return actingTransaction(knex, by.actor, async (trx) => {
    const [inserted] = (await trx('base_user')
      .insert({
        username: user.username,
        password_hash: user.passwordHash,
        password_changed_at:
          user.passwordHash === null || user.mustChangePassword === true ? null : trx.fn.now(),
      })
      .onConflict('username')
      .ignore()
      .returning('id')) as Array<{ id: number }>;
    if (inserted === undefined)
      throw new WardError(
        'user_exists',
        `user ${user.username} already exists`,
        `change it with \`ward users grant\`, \`ward users revoke\` or \`ward users set-password ${user.username}\``,
      );
    for (const role of user.roles)
      await trx('base_user_role').insert({ user_id: inserted.id, role_id: await roleId(trx, role) });
    await appendBy(trx, by, [
      {
        action: 'user.create',
        kind: 'user',
        recordId: inserted.id,
        detail: {
          username: user.username,
          roles: user.roles,
          password:
            user.passwordHash === null ? 'none' : user.mustChangePassword === true ? 'temporary' : 'set',
        },
      },
    ]);
    return inserted.id;
  });
}

export async function listUsers(knex: Knex): Promise<UserSummary[]> {
  const rows = (await knex('base_user as u')
    .select(
      'u.id',
      'u.username',
      'u.created_at',
      'u.password_changed_at',
      knex.raw(`coalesce(u.password_hash not in ('', ?), false) as has_password`, [DISABLED]),
      knex.raw(`${disabledSql('u.password_hash')} as disabled`),
      knex.raw(`${ROLES_OF_USER} as roles`),
    )
    .orderBy('u.username')) as Array<{
    id: number;
    username: string;
    created_at: Date;
    password_changed_at: Date | null;
    has_password: boolean;
    disabled: boolean;
    roles: string[];
  }>;
  return rows.map((row) => ({
    id: row.id,
    username: row.username,
    roles: row.roles,
    hasPassword: row.has_password,
    disabled: row.disabled,
    createdAt: row.created_at,
    passwordChangedAt: row.password_changed_at,
  }));
}

export interface PasswordSet {
  sessionsEnded: number;
  tokensRevoked: number;
}

/**
 * Sets the hash, which clears a pending password change, and takes away the ways in the old
 * password stood behind: the user's sessions end (a password change signs out every browser) but
 * `keepSession` (the SHA-256 of the secret of the one the change was made in), and the user's API
 * tokens are revoked unless `keepTokens`. A password is changed because it may be known; a token
 * made while it was would otherwise outlive the change. Refuses a disabled user: a new hash would
 * silently enable them. `temporary`: the user must choose their own at the next sign-in.
 */
export async function setPasswordHash(
  knex: Knex,
  userId: number,
  passwordHash: string,
  options: { keepSession?: Buffer | null; keepTokens?: boolean; temporary?: boolean } = {},
  by: By = SYSTEM_BY,
): Promise<PasswordSet> {
  const { keepSession = null, keepTokens = false, temporary = false } = options;
  return actingTransaction(knex, by.actor, async (trx) => {
    await lockEnabledUser(trx, userId);
    await trx('base_user')
      .where({ id: userId })
      // A temporary password (an administrator's reset) leaves the change pending, as the first admin's does.
      .update({ password_hash: passwordHash, password_changed_at: temporary ? null : trx.fn.now() });
    const sessionsEnded = await trx('base_session')
      .where({ user_id: userId })
      .modify((query) => {
        if (keepSession !== null) void query.whereNot({ id_hash: keepSession });
      })
      .del();
    const tokensRevoked = keepTokens
      ? 0
      : await trx('base_api_token')
          .where({ user_id: userId })
          .whereNull('revoked_at')
          .update({ revoked_at: trx.fn.now() });
    const done = { sessionsEnded: sessionsEnded ?? 0, tokensRevoked };
    await appendBy(trx, by, [
      { action: 'user.password', kind: 'user', recordId: userId, detail: { temporary, ...done } },
    ]);
    return done;
  });
}

export interface Disabled {
  sessionsEnded: number;
  tokensRevoked: number;
}

/**
 * Locks the password and takes away every way in the user has now: sessions end, API tokens are
 * revoked (and stay so when the user is enabled again). Null when the user was already disabled.
 */
export async function disableUser(knex: Knex, user: UserRow, by: By = SYSTEM_BY): Promise<Disabled | null> {
  return actingTransaction(knex, by.actor, async (trx) => {
    // The lock is put on the hash as it is now, not as `user` was read: a password set meanwhile
    // must be the one `enable` restores.
    const locked = await trx('base_user')
      .where({ id: user.id })
      .whereRaw(`not ${disabledSql('password_hash')}`)
      .update({ password_hash: trx.raw("? || coalesce(password_hash, '')", [DISABLED]) });
    if (locked === 0) return null;
    const sessionsEnded = (await trx('base_session').where({ user_id: user.id }).del()) ?? 0;
    const tokensRevoked = await trx('base_api_token')
      .where({ user_id: user.id })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() });
    await appendBy(trx, by, [
      {
        action: 'user.disable',
        kind: 'user',
        recordId: user.id,
        detail: { username: user.username, sessionsEnded, tokensRevoked },
      },
    ]);
    return { sessionsEnded, tokensRevoked };
  });
}

/** Restores the password the user had; false when the user was not disabled. */
export async function enableUser(knex: Knex, user: UserRow, by: By = SYSTEM_BY): Promise<boolean> {
  return actingTransaction(knex, by.actor, async (trx) => {
    const unlocked = await trx('base_user')
      .where({ id: user.id })
      .whereRaw(disabledSql('password_hash'))
      .update({ password_hash: trx.raw("nullif(substr(password_hash, length(?) + 1), '')", [DISABLED]) });
    if (unlocked === 0) return false;
    await appendBy(trx, by, [
      {
        action: 'user.update',
        kind: 'user',
        recordId: user.id,
        detail: { username: user.username, enabled: true },
      },
    ]);
    return true;
  });
}

/** Returns false when the user already held the role. */
export async function grantRole(
  knex: Knex,
  userId: number,
  role: string,
  by: By = SYSTEM_BY,
): Promise<boolean> {
  return actingTransaction(knex, by.actor, async (trx) => {
    const inserted = await trx('base_user_role')
      .insert({ user_id: userId, role_id: await roleId(trx, role) })
      .onConflict(['user_id', 'role_id'])
      .ignore()
      .returning('user_id');
    if (inserted.length === 0) return false;
    await appendBy(trx, by, [
      { action: 'user.roles', kind: 'user', recordId: userId, detail: { granted: role } },
    ]);
    return true;
  });
}

/** Returns false when the user did not hold the role. */
export async function revokeRole(
  knex: Knex,
  userId: number,
  role: string,
  by: By = SYSTEM_BY,
): Promise<boolean> {
  return actingTransaction(knex, by.actor, async (trx) => {
    const removed = await trx('base_user_role')
      .where({ user_id: userId })
      .whereIn('role_id', trx('base_role').select('id').where({ name: role }))
      .del();
    if (removed === 0) return false;
    await appendBy(trx, by, [
      { action: 'user.roles', kind: 'user', recordId: userId, detail: { revoked: role } },
    ]);
    return true;
  });
}

export async function rolesOf(knex: Knex, userId: number): Promise<string[]> {
  return (await knex('base_user_role as ur')
    .join('base_role as r', 'r.id', 'ur.role_id')
    .where('ur.user_id', userId)
    .orderBy('r.name')
    .pluck('r.name')) as string[];
}
