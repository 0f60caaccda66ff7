/**
 * The one query per credential kind that resolves a hashed secret to its user and roles, and the
 * throttled write of when it was last used.
 */
import type { Knex } from 'knex';
import type { StoredCredential } from './principal.ts';
import type { SecretKind } from './tokens.ts';
import { disabledSql, mustChangePasswordSql, ROLES_OF_USER } from './users.ts';

interface SessionRow {
  user_id: number;
  username: string;
  roles: string[];
  csrf_secret: string;
  expires_at: Date;
  last_seen_at: Date;
  must_change_password: boolean;
  has_two_factor: boolean;
}

interface TokenRow {
  id: number;
  name: string | null;
  user_id: number;
  username: string;
  roles: string[];
  scope: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/**
 * A disabled user's sessions and tokens were ended when they were disabled; this refuses any the
 * user got since, whatever path created them.
 */
const ENABLED = `not ${disabledSql('u.password_hash')}`;

const MUST_CHANGE = `${mustChangePasswordSql('u')} as must_change_password`;

export async function loadCredential(
  knex: Knex,
  kind: SecretKind,
  hash: Buffer,
): Promise<StoredCredential | null> {
  if (kind === 'session') {
    const { rows } = (await knex.raw(
      `select s.user_id, u.username, ${ROLES_OF_USER} as roles, s.csrf_secret, s.expires_at,
              s.last_seen_at, ${MUST_CHANGE},
              exists(select 1 from base_user_totp t where t.user_id = u.id and t.confirmed_at is not null)
                as has_two_factor
         from base_session s join base_user u on u.id = s.user_id
        where s.id_hash = ? and ${ENABLED}`,
      [hash],
    )) as { rows: SessionRow[] };
    const row = rows[0];
    if (row === undefined) return null;
    return {
      userId: row.user_id,
      username: row.username,
      roles: row.roles,
      revokedAt: null,
      mustChangePassword: row.must_change_password,
      hasTwoFactor: row.has_two_factor,
      credential: {
        kind: 'session',
        ref: hash.toString('hex').slice(0, 16),
        csrfSecret: row.csrf_secret,
        expiresAt: row.expires_at,
        lastSeenAt: row.last_seen_at,
      },
    };
  }
  const { rows } = (await knex.raw(
    `select t.id, t.name, t.user_id, u.username, ${ROLES_OF_USER} as roles, scope.name as scope,
            t.expires_at, t.revoked_at
       from base_api_token t join base_user u on u.id = t.user_id
       left join base_role scope on scope.id = t.role_id
      where t.token_hash = ? and ${ENABLED}`,
    [hash],
  )) as { rows: TokenRow[] };
  const row = rows[0];
  if (row === undefined) return null;
  return {
    userId: row.user_id,
    username: row.username,
    roles: row.roles,
    revokedAt: row.revoked_at,
    // The forced change guards the password Ward chose, which sits in a file on the storage volume.
    // A token is minted by an operator with shell access (`ward tokens create`), never with that
    // password, so it is not held back until the password changes.
    mustChangePassword: false,
    hasTwoFactor: false,
    credential: { kind: 'token', id: row.id, name: row.name, scope: row.scope, expiresAt: row.expires_at },
  };
}

/**
 * Columns the change-notification triggers ignore, so this write never empties a cache. `at` is
 * the backend's clock: the idle check compares a session's last_seen_at with it.
 */
export async function recordUse(knex: Knex, kind: SecretKind, hash: Buffer, at: Date): Promise<void> {
  if (kind === 'session') await knex('base_session').where({ id_hash: hash }).update({ last_seen_at: at });
  else await knex('base_api_token').where({ token_hash: hash }).update({ last_used_at: at });
}
