/**
 * At a backend's start, before it serves: seals the two-factor secrets stored before sealing
 * existed (plain base32 in `base_user_totp.secret`), in one transaction, and says clearly when
 * the stored secrets cannot be used with the SECRET_KEY set now (none set, or another one).
 * Sealing again does nothing: a sealed row is left as it is. A start never fails on this: users
 * without two-factor sign-in are not concerned, and the others meet the same error when they
 * sign in, with its hint.
 */
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import type { WardError } from '../errors/ward-error.ts';
import { isSealed, requireSealingKey, seal, unseal, type SealingKey } from './secret-seal.ts';
import { totpBound } from './two-factor.ts';

export interface SealReport {
  /** Rows sealed by this run. */
  sealed: number;
  /** Why the stored secrets cannot be opened now, if they cannot. */
  problem: WardError | null;
}

interface Row {
  user_id: number;
  secret: string;
}

export async function sealStoredSecrets(knex: Knex, key: SealingKey | null): Promise<SealReport> {
  if (!(await knex.schema.hasTable('base_user_totp'))) return { sealed: 0, problem: null };
  return knex.transaction(async (trx) => {
    const rows = (await trx('base_user_totp')
      .forUpdate()
      .orderBy('user_id')
      .select('user_id', 'secret')) as Row[];
    const plain = rows.filter((row) => !isSealed(row.secret));
    const sealed = rows.filter((row) => isSealed(row.secret));
    try {
      if (rows.length > 0) requireSealingKey(key);
      // One sealed row opening is enough to tell the key is the one they were sealed with.
      const probe = sealed[0];
      if (probe !== undefined) unseal(key!, probe.secret, totpBound(probe.user_id));
    } catch (error) {
      return { sealed: 0, problem: error as WardError };
    }
    for (const row of plain)
      await trx('base_user_totp')
        .where({ user_id: row.user_id })
        .update({ secret: seal(key!, row.secret, totpBound(row.user_id)) });
    return { sealed: plain.length, problem: null };
  });
}

/** `sealStoredSecrets`, its outcome logged (never a secret). */
export async function sealAtStart(knex: Knex, key: SealingKey | null, logger: Logger): Promise<void> {
  const { sealed, problem } = await sealStoredSecrets(knex, key);
  if (sealed > 0) logger.info({ sealed }, 'sealed the two-factor secrets stored before sealing existed');
  if (problem !== null)
    logger.error(
      { code: problem.code, hint: problem.hint },
      `two-factor sign-in cannot work: ${problem.message}`,
    );
}
