/**
 * Two-factor sign-in with TOTP (RFC 6238: 6 digits, 30 s steps, SHA-1, as every authenticator app
 * reads an otpauth:// URI) by otplib, and single-use recovery codes. A code is accepted one step
 * early or late (clocks drift) and only once: the step it matched is stored, and no code of that
 * step or an earlier one is taken again. Five wrong codes in a row lock the second step for five
 * minutes, so that someone who has the password cannot go on guessing the six digits.
 *
 * The secret is stored sealed with the deployment's SECRET_KEY (src/auth/secret-seal.ts): a copy
 * of the database alone cannot produce codes. Recovery codes need no key (only their hashes are
 * kept), so they still sign in when the key is missing or wrong.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type * as Otplib from 'otplib';
import { appendBy, SYSTEM_BY, type By } from '../audit/record.ts';
import type { TwoFactorPolicy } from '../config/backend-settings.ts';
import { actingTransaction } from '../db/acting.ts';
import { isSealed, requireSealingKey, seal, unseal, type SealingKey } from './secret-seal.ts';
import { hashSecret } from './tokens.ts';

export const ISSUER = 'Ward';
export const RECOVERY_CODES = 10;
export const MAX_FAILURES = 5;
export const LOCK_MS = 5 * 60_000;
export const CHALLENGE_TTL_MS = 5 * 60_000;
export type { TwoFactorPolicy };

/**
 * otplib, loaded on first use: it pulls in its hash and base32 plugins (about a dozen files that
 * take longer to evaluate than the rest of the auth code), and only a user setting up or using
 * two-factor sign-in needs them, never a start.
 */
let otplib: Promise<typeof Otplib> | undefined;
const totp = () => (otplib ??= import('otplib'));

/** Whether a user with these roles must have a second factor under `policy` (pure). */
export function twoFactorRequired(policy: TwoFactorPolicy, roles: readonly string[]): boolean {
  return policy === 'everyone' || (policy === 'admins' && roles.includes('admin'));
}

interface TotpRow {
  secret: string;
  confirmed_at: Date | null;
  last_time_step: string | null;
  failures: number;
  locked_until: Date | null;
}

/** What a user's sealed secret is bound to: it opens on this row only. */
export const totpBound = (userId: number): string => `base_user_totp:${userId}`;

const totpOf = async (knex: Knex, userId: number) =>
  (await knex('base_user_totp').where({ user_id: userId }).first()) as TotpRow | undefined;

export interface TwoFactorStatus {
  enabled: boolean;
  /** Recovery codes not used yet. */
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(knex: Knex, userId: number): Promise<TwoFactorStatus> {
  const row = await totpOf(knex, userId);
  const [left] = (await knex('base_recovery_code')
    .where({ user_id: userId })
    .whereNull('used_at')
    .count('* as n')) as Array<{ n: string }>;
  return { enabled: row?.confirmed_at != null, recoveryCodesLeft: Number(left?.n ?? 0) };
}

export async function hasTwoFactor(knex: Knex, userId: number): Promise<boolean> {
  return (await totpOf(knex, userId))?.confirmed_at != null;
}

/**
 * A new secret for the user, not in force until confirmed with a code from it; replaces an
 * unconfirmed one. Null when the user already has a confirmed second factor.
 */
export async function startEnrolment(
  knex: Knex,
  key: SealingKey | null,
  user: { id: number; username: string },
  by: By = SYSTEM_BY,
): Promise<{ secret: string; uri: string } | null> {
  const sealing = requireSealingKey(key);
  const { generateSecret, generateURI } = await totp();
  const secret = generateSecret();
  const started = await actingTransaction(knex, by.actor, async (trx) => {
    const inserted = await trx.raw(
      `insert into base_user_totp (user_id, secret) values (?, ?)
       on conflict (user_id) do update set secret = excluded.secret, created_at = now(), failures = 0,
         locked_until = null, last_time_step = null
       where base_user_totp.confirmed_at is null
       returning user_id`,
      [user.id, seal(sealing, secret, totpBound(user.id))],
    );
    if ((inserted as { rows: unknown[] }).rows.length === 0) return false;
    // Never the secret: the row says only that a setup began.
    await appendBy(trx, by, [{ action: 'user.two_factor_setup', kind: 'user', recordId: user.id }]);
    return true;
  });
  return started ? { secret, uri: generateURI({ issuer: ISSUER, label: user.username, secret }) } : null;
}

/** The time step `code` matched for `secret`, or null; never a step at or before `after`. */
async function matchCode(secret: string, code: string, after: number | null): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const { verify } = await totp();
  const result = await verify({ secret, token: code, epochTolerance: 30 });
  const step = result.valid && 'timeStep' in result ? (result.timeStep as number) : null;
  return step === null || (after !== null && step <= after) ? null : step;
}

/**
 * The secret of the user's row (locked by the caller), sealed in place first when it is stored
 * plain: a replica older than sealing, still serving during a rolling upgrade, may have just set
 * one up. The other way needs nothing: such a replica cannot decode a sealed value as base32
 * (`v1.` is not base32), so it fails the code step and never takes a code.
 */
async function openSecret(
  trx: Knex.Transaction,
  key: SealingKey | null,
  userId: number,
  stored: string,
): Promise<string> {
  const sealing = requireSealingKey(key);
  if (isSealed(stored)) return unseal(sealing, stored, totpBound(userId));
  await trx('base_user_totp')
    .where({ user_id: userId })
    .update({ secret: seal(sealing, stored, totpBound(userId)) });
  return stored;
}

export type Confirmed = { recoveryCodes: string[] } | 'no_enrolment' | 'wrong_code' | 'already';

/** Puts the second factor in force when `code` is right, with a fresh set of recovery codes. */
export async function confirmEnrolment(
  knex: Knex,
  key: SealingKey | null,
  userId: number,
  code: string,
  by: By = SYSTEM_BY,
): Promise<Confirmed> {
  return actingTransaction(knex, by.actor, async (trx) => {
    const row = (await trx('base_user_totp').where({ user_id: userId }).forUpdate().first()) as
      TotpRow | undefined;
    if (row === undefined) return 'no_enrolment';
    if (row.confirmed_at !== null) return 'already';
    const secret = await openSecret(trx, key, userId, row.secret);
    const step = await matchCode(secret, code.trim(), null);
    if (step === null) return 'wrong_code';
    await trx('base_user_totp')
      .where({ user_id: userId })
      .update({ confirmed_at: trx.fn.now(), last_time_step: step, failures: 0 });
    const recoveryCodes = await replaceRecoveryCodes(trx, userId);
    await appendBy(trx, by, [
      {
        action: 'user.two_factor_enabled',
        kind: 'user',
        recordId: userId,
        detail: { recoveryCodes: recoveryCodes.length },
      },
    ]);
    return { recoveryCodes };
  });
}

/** Ten codes of 16 base32 characters (80 bits) in groups of four: only their SHA-256 is kept. */
async function replaceRecoveryCodes(trx: Knex.Transaction, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await trx('base_recovery_code').where({ user_id: userId }).del();
  await trx('base_recovery_code').insert(
    codes.map((code) => ({ user_id: userId, code_hash: hashSecret(normalRecoveryCode(code)) })),
  );
  return codes;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function newRecoveryCode(): string {
  const chars = [...randomBytes(16)].map((byte) => BASE32[byte % 32]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** As typed: any case, with or without the dashes and spaces. */
export const normalRecoveryCode = (code: string): string => code.toUpperCase().replace(/[\s-]/g, '');

export type SecondFactor = 'ok' | 'wrong' | 'locked';

/**
 * Checks a TOTP code or a recovery code (which is then used up) for a user with a confirmed
 * second factor; counts wrong ones and locks after MAX_FAILURES.
 */
export async function checkSecondFactor(
  knex: Knex,
  key: SealingKey | null,
  userId: number,
  answer: { code?: string; recoveryCode?: string },
  now = Date.now(),
): Promise<{ outcome: SecondFactor; lockedUntil?: Date }> {
  return knex.transaction(async (trx) => {
    const row = (await trx('base_user_totp').where({ user_id: userId }).forUpdate().first()) as
      TotpRow | undefined;
    if (row?.confirmed_at == null) return { outcome: 'wrong' };
    if (row.locked_until !== null && row.locked_until.getTime() > now)
      return { outcome: 'locked', lockedUntil: row.locked_until };
    let right = false;
    if (answer.code !== undefined) {
      const last = row.last_time_step === null ? null : Number(row.last_time_step);
      const secret = await openSecret(trx, key, userId, row.secret);
      const step = await matchCode(secret, answer.code.trim(), last);
      if (step !== null) {
        await trx('base_user_totp').where({ user_id: userId }).update({ last_time_step: step });
        right = true;
      }
    } else if (answer.recoveryCode !== undefined) {
      const used = await trx('base_recovery_code')
        .where({ user_id: userId, code_hash: hashSecret(normalRecoveryCode(answer.recoveryCode)) })
        .whereNull('used_at')
        .update({ used_at: trx.fn.now() });
      right = used > 0;
    }
    if (right) {
      await trx('base_user_totp').where({ user_id: userId }).update({ failures: 0, locked_until: null });
      return { outcome: 'ok' };
    }
    const failures = row.failures + 1;
    const lockedUntil = failures >= MAX_FAILURES ? new Date(now + LOCK_MS) : null;
    await trx('base_user_totp')
      .where({ user_id: userId })
      .update({ failures: lockedUntil === null ? failures : 0, locked_until: lockedUntil });
    return lockedUntil === null ? { outcome: 'wrong' } : { outcome: 'locked', lockedUntil };
  });
}

/**
 * Removes the user's second factor and recovery codes; false when there was none (and nothing is
 * recorded, since nothing changed).
 */
export async function disableTwoFactor(knex: Knex, userId: number, by: By = SYSTEM_BY): Promise<boolean> {
  return actingTransaction(knex, by.actor, async (trx) => {
    await trx('base_recovery_code').where({ user_id: userId }).del();
    const removed = (await trx('base_user_totp').where({ user_id: userId }).del()) > 0;
    if (removed)
      await appendBy(trx, by, [{ action: 'user.two_factor_disabled', kind: 'user', recordId: userId }]);
    return removed;
  });
}

/**
 * A challenge: what a right password gets when a second factor must follow. Its secret goes to
 * the client; the database keeps its SHA-256.
 */
export async function createChallenge(
  knex: Knex,
  userId: number,
  now = Date.now(),
): Promise<{ challenge: string; expiresAt: Date }> {
  const challenge = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now + CHALLENGE_TTL_MS);
  await knex('base_sign_in_challenge').where('expires_at', '<=', new Date(now)).del();
  await knex('base_sign_in_challenge').insert({
    id_hash: hashSecret(challenge),
    user_id: userId,
    expires_at: expiresAt,
  });
  return { challenge, expiresAt };
}

/** The user a live challenge stands for, or null. */
export async function challengeUser(knex: Knex, challenge: string, now = Date.now()): Promise<number | null> {
  const row = (await knex('base_sign_in_challenge')
    .where({ id_hash: hashSecret(challenge) })
    .andWhere('expires_at', '>', new Date(now))
    .first('user_id')) as { user_id: number } | undefined;
  return row?.user_id ?? null;
}

export async function endChallenge(knex: Knex, challenge: string): Promise<void> {
  await knex('base_sign_in_challenge')
    .where({ id_hash: hashSecret(challenge) })
    .del();
}
