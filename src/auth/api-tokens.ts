/**
 * API tokens for scripts and service accounts (the sync agent): shown once at creation, stored as
 * a hash, optionally scoped to one role of their user, expiring by default.
 */
import { appendBy, SYSTEM_BY, type By } from '../audit/record.ts';
import { actingTransaction } from '../db/acting.ts';
import type { Knex } from 'knex';
import { hashSecret, newSecret } from './tokens.ts';
import { lockEnabledUser, roleId } from './users.ts';

export const DEFAULT_TOKEN_LIFETIME = '90d';

export interface TokenSummary {
  id: number;
  name: string | null;
  user: string;
  role: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  status: 'active' | 'expired' | 'revoked';
}

export async function createApiToken(
  knex: Knex,
  token: { userId: number; role: string | null; name: string | null; expiresAt: Date | null },
  by: By = SYSTEM_BY,
): Promise<{ id: number; secret: string }> {
  const secret = newSecret('token');
  return actingTransaction(knex, by.actor, async (trx) => {
    // Not for a user being disabled meanwhile: the disable's revocation would miss this token.
    await lockEnabledUser(trx, token.userId);
    const [row] = (await trx('base_api_token')
      .insert({
        token_hash: hashSecret(secret),
        name: token.name,
        user_id: token.userId,
        role_id: token.role === null ? null : await roleId(trx, token.role),
        expires_at: token.expiresAt,
      })
      .returning('id')) as Array<{ id: number }>;
    const id = (row as { id: number }).id;
    await appendBy(trx, by, [
      {
        action: 'token.create',
        kind: 'token',
        recordId: id,
        detail: { userId: token.userId, role: token.role, name: token.name, expiresAt: token.expiresAt },
      },
    ]);
    return { id, secret };
  });
}

export function tokenStatus(
  token: { revokedAt: Date | null; expiresAt: Date | null },
  now: number,
): TokenSummary['status'] {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt.getTime() <= now) return 'expired';
  return 'active';
}

export async function listApiTokens(knex: Knex, options: { userId?: number } = {}): Promise<TokenSummary[]> {
  const query = knex('base_api_token as t')
    .join('base_user as u', 'u.id', 't.user_id')
    .leftJoin('base_role as r', 'r.id', 't.role_id')
    .select(
      't.id',
      't.name',
      'u.username',
      'r.name as role',
      't.created_at',
      't.expires_at',
      't.revoked_at',
      't.last_used_at',
    )
    .orderBy('t.id');
  if (options.userId !== undefined) query.where('t.user_id', options.userId);
  const rows = (await query) as Array<{
    id: number;
    name: string | null;
    username: string;
    role: string | null;
    created_at: Date;
    expires_at: Date | null;
    revoked_at: Date | null;
    last_used_at: Date | null;
  }>;
  const now = Date.now();
  return rows.map((row) => {
    const summary = {
      id: row.id,
      name: row.name,
      user: row.username,
      role: row.role,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
    };
    return { ...summary, status: tokenStatus(summary, now) };
  });
}

/** `unknown` when no token has that id; `already` when it was revoked before. */
export async function revokeApiToken(
  knex: Knex,
  id: number,
  by: By = SYSTEM_BY,
): Promise<'revoked' | 'already' | 'unknown'> {
  const revoked = await actingTransaction(knex, by.actor, async (trx) => {
    const updated = (await trx('base_api_token')
      .where({ id })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() })
      .returning('user_id')) as Array<{ user_id: number }>;
    if (updated.length === 0) return false;
    await appendBy(trx, by, [
      { action: 'token.revoke', kind: 'token', recordId: id, detail: { userId: updated[0]!.user_id } },
    ]);
    return true;
  });
  if (revoked) return 'revoked';
  const exists = await knex('base_api_token').where({ id }).first('id');
  return exists === undefined ? 'unknown' : 'already';
}
