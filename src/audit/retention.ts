/**
 * Retention: rows older than `WARD_AUDIT_RETENTION_DAYS` are deleted, the oldest first, by the
 * only DELETE the table's trigger lets through (the transaction sets `ward.audit_purge`). The
 * purge records itself as an `audit.purge` row holding the id and hash of the last row it removed:
 * the anchor `ward audit verify` starts from, so the chain stays verifiable.
 */
import type { Knex } from 'knex';
import { SYSTEM_ACTOR, type Actor } from '../db/acting.ts';
import { LOCK_KEYS } from '../db/lock.ts';
import { appendAudit } from './record.ts';
import type { PurgeDetail } from './verify.ts';

/** Deletes the rows older than `days` days; returns how many (0: nothing recorded). */
export async function purgeAudit(knex: Knex, days: number, actor: Actor = SYSTEM_ACTOR): Promise<number> {
  // Found before the chain's turn is taken: finding it reads the trail (newest first, by id), which
  // on a large trail takes a while, and every audited request waits while the turn is held. It
  // cannot change meanwhile: ids and times only grow, and the newest row always stays, for the
  // purge's own row to link to.
  const { rows } = (await knex.raw(
    `select max(id)::text as through from core_audit_event
      where at < now() - make_interval(days => ?)
        and id < (select max(id) from core_audit_event)`,
    [days],
  )) as { rows: [{ through: string | null }] };
  const through = rows[0].through;
  if (through === null) return 0;
  return knex.transaction(async (trx) => {
    // The purge and its record take the chain's turn together, so no append slips between them
    // (appendAudit takes the lock again: advisory locks stack within a transaction).
    await trx.raw('select pg_advisory_xact_lock(?)', [LOCK_KEYS.audit]);
    const last = (await trx('core_audit_event').where({ id: through }).first('hash')) as
      { hash: Buffer } | undefined;
    // Another replica's purge went through it meanwhile.
    if (last === undefined) return 0;
    await trx.raw(`select set_config('ward.audit_purge', 'on', true)`);
    const purged = await trx('core_audit_event').where('id', '<=', through).delete();
    await trx.raw(`select set_config('ward.audit_purge', 'off', true)`);
    const detail: PurgeDetail = {
      purged,
      throughId: through,
      lastHash: last.hash.toString('hex'),
      retentionDays: days,
    };
    await appendAudit(trx, [{ actor, action: 'audit.purge', kind: 'audit_event', detail }]);
    return purged;
  });
}
