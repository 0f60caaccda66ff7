/**
 * At a backend's start, before it serves: seals the two-factor secrets stored before sealing
 * existed (plain base32 in `base_user_totp.secret`), in one transaction on the start's plain pool
 * (so that a start with nothing to change still loads no knex), and says clearly when
 * the stored secrets cannot be used with the SECRET_KEY set now (none set, or another one).
 * Sealing again does nothing: a sealed row is left as it is. A start never fails on this: users
 * without two-factor sign-in are not concerned, and the others meet the same error when they
 * sign in, with its hint.
 */
import type pg from 'pg';
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

export async function sealStoredSecrets(pool: pg.Pool, key: SealingKey | null): Promise<SealReport> {
  const client = await pool.connect();
  try {
    const found = await client.query<{ found: boolean }>(
      "select to_regclass('base_user_totp') is not null as found",
    );
    if (found.rows[0]?.found !== true) return { sealed: 0, problem: null };
    await client.query('begin');
    try {
      const report = await sealRows(client, key);
      await client.query(report.problem === null ? 'commit' : 'rollback');
      return report;
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  } finally {
    client.release();
  }
}

async function sealRows(client: pg.PoolClient, key: SealingKey | null): Promise<SealReport> {
  const { rows } = await client.query<Row>(
    'select user_id, secret from base_user_totp order by user_id for update',
  );
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
    await client.query('update base_user_totp set secret = $1 where user_id = $2', [
      seal(key!, row.secret, totpBound(row.user_id)),
      row.user_id,
    ]);
  return { sealed: plain.length, problem: null };
}

/** `sealStoredSecrets`, its outcome logged (never a secret). */
export async function sealAtStart(pool: pg.Pool, key: SealingKey | null, logger: Logger): Promise<void> {
  const { sealed, problem } = await sealStoredSecrets(pool, key);
  if (sealed > 0) logger.info({ sealed }, 'sealed the two-factor secrets stored before sealing existed');
  if (problem !== null)
    logger.error(
      { code: problem.code, hint: problem.hint },
      `two-factor sign-in cannot work: ${problem.message}`,
    );
}
