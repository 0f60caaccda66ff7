/**
 * Walking the audit chain (`ward audit verify`) and taking its checkpoint (`ward audit checkpoint`).
 * The walk always starts at the oldest row present. Before any purge it links to the empty hash;
 * after a retention purge, to the hash of the last row purged, which the latest `audit.purge` row
 * recorded (its anchor). A purge row is only an anchor when it is consistent with the table: no
 * row it claims to have removed is still there, purges only ever move forward, and the oldest row
 * present links to its hash. Anyone who can delete (the table's owner, a superuser) can still cut
 * the oldest rows and write a purge row of their own that passes these checks: a kept checkpoint
 * older than the cut catches that. It reads the rows in id order, a page at a time.
 */
import type { Knex } from 'knex';
import { GENESIS, linksTo, type Checkpoint, type StoredRow } from './chain.ts';
import { COLUMNS, type AuditRow } from './query.ts';

const PAGE = 5000;

/** Where the walk started after a purge: the purge row, and the last row id and hash it removed. */
export interface Anchor {
  purgeId: string;
  throughId: string;
  hash: string;
}

export type Verdict =
  | {
      intact: true;
      rows: number;
      first: string | null;
      last: { id: string; hash: string } | null;
      anchor: Anchor | null;
    }
  | { intact: false; brokenAt: string | null; reason: string; rows: number; anchor: Anchor | null };

/** What a purge row's `detail` holds. */
export interface PurgeDetail {
  purged: number;
  throughId: string;
  lastHash: string;
  retentionDays: number;
}

interface PurgeRow {
  id: string;
  detail: Partial<PurgeDetail> | null;
}

/**
 * The anchor the walk starts from (the latest purge), or a reason the purge rows cannot be one:
 * each must name an earlier row and a hash, and each purge must reach further than the one before.
 */
async function purgeAnchor(
  knex: Knex,
): Promise<{ anchor: Anchor | null } | { brokenAt: string; reason: string }> {
  const purges = (await knex('core_audit_event')
    .where({ action: 'audit.purge' })
    .orderBy('id')
    .select('id', 'detail')) as PurgeRow[];
  let anchor: Anchor | null = null;
  for (const purge of purges) {
    const throughId = purge.detail?.throughId;
    const hash = purge.detail?.lastHash;
    if (
      typeof throughId !== 'string' ||
      !/^\d+$/.test(throughId) ||
      typeof hash !== 'string' ||
      !/^[0-9a-f]{64}$/.test(hash)
    )
      return {
        brokenAt: purge.id,
        reason: `the purge at row ${purge.id} does not record the row and hash it purged through`,
      };
    if (BigInt(throughId) >= BigInt(purge.id))
      return {
        brokenAt: purge.id,
        reason: `the purge at row ${purge.id} claims to have removed rows through ${throughId}, not older than itself`,
      };
    if (anchor !== null && BigInt(throughId) <= BigInt(anchor.throughId))
      return {
        brokenAt: purge.id,
        reason: `the purge at row ${purge.id} claims rows through ${throughId}, but the purge at row ${anchor.purgeId} had already removed rows through ${anchor.throughId}`,
      };
    anchor = { purgeId: purge.id, throughId, hash };
  }
  return { anchor };
}

// The text a row holds is hashed as it is: a tampered outcome outside the known ones breaks the chain.
const stored = (row: AuditRow): StoredRow => ({
  id: row.id,
  at: row.at,
  actor: row.actor,
  userId: row.user_id,
  action: row.action,
  module: row.module,
  kind: row.kind,
  recordId: row.record_id,
  patientId: row.patient_id,
  patientIds: row.patient_ids,
  client: row.client,
  outcome: row.outcome as StoredRow['outcome'],
  detail: row.detail,
  hash: row.hash,
});

/**
 * Walks the chain from its oldest kept row. With `checkpoint`, the row it names must be there
 * with the hash it holds (or be the purge anchor): a chain rewritten from the start, or cut short,
 * fails against it.
 */
export async function verifyChain(knex: Knex, checkpoint: Checkpoint | null = null): Promise<Verdict> {
  const purges = await purgeAnchor(knex);
  if (!('anchor' in purges)) return { intact: false, ...purges, rows: 0, anchor: null };
  const { anchor } = purges;
  let prev: Buffer = anchor === null ? GENESIS : Buffer.from(anchor.hash, 'hex');
  let after = '0';
  let rows = 0;
  let first: string | null = null;
  let last: { id: string; hash: string } | null = null;
  let checkpointSeen = checkpoint !== null && anchor !== null && checkpoint.id === anchor.throughId;
  if (checkpointSeen && checkpoint!.hash !== anchor!.hash)
    return {
      intact: false,
      brokenAt: anchor!.purgeId,
      reason: `the purge anchor at row ${anchor!.purgeId} does not hold the checkpoint's hash of row ${checkpoint!.id}`,
      rows,
      anchor,
    };
  for (;;) {
    const page = (
      (await knex('core_audit_event')
        .select(COLUMNS)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)) as AuditRow[]
    ).map(stored);
    for (const row of page) {
      if (first === null && anchor !== null && BigInt(row.id) <= BigInt(anchor.throughId))
        return {
          intact: false,
          brokenAt: row.id,
          reason: `row ${row.id} is still there although the purge at row ${anchor.purgeId} claims to have removed every row through ${anchor.throughId}: that purge row was not written by the retention`,
          rows,
          anchor,
        };
      if (first === null && !linksTo(prev, row))
        return {
          intact: false,
          brokenAt: row.id,
          reason:
            anchor === null
              ? `row ${row.id}, the oldest present, does not start the chain: it was changed, or older rows were removed without a retention purge`
              : `row ${row.id}, the oldest present, does not link to the hash the purge at row ${anchor.purgeId} recorded: it was changed, or rows were removed after the purge`,
          rows,
          anchor,
        };
      if (!linksTo(prev, row))
        return {
          intact: false,
          brokenAt: row.id,
          reason: `row ${row.id} does not match its hash or does not follow the row before it: it, or a row just before it, was changed or removed`,
          rows,
          anchor,
        };
      if (checkpoint !== null && row.id === checkpoint.id) {
        if (row.hash.toString('hex') !== checkpoint.hash)
          return {
            intact: false,
            brokenAt: row.id,
            reason: `row ${row.id} does not hold the checkpoint's hash: the chain was rewritten up to it`,
            rows,
            anchor,
          };
        checkpointSeen = true;
      }
      first ??= row.id;
      rows += 1;
      prev = row.hash;
      last = { id: row.id, hash: row.hash.toString('hex') };
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
  if (checkpoint !== null && !checkpointSeen) {
    const purged = anchor !== null && BigInt(checkpoint.id) < BigInt(anchor.throughId);
    return {
      intact: false,
      brokenAt: null,
      reason: purged
        ? `the checkpoint's row ${checkpoint.id} is older than the retention purge (through row ${anchor!.throughId}): take a newer checkpoint`
        : `the checkpoint's row ${checkpoint.id} is not in the log: rows up to it were removed or renumbered`,
      rows,
      anchor,
    };
  }
  return { intact: true, rows, first, last, anchor };
}

/** The latest row's id and hash, or null while the log is empty. */
export async function takeCheckpoint(knex: Knex): Promise<Checkpoint | null> {
  const row = (await knex('core_audit_event').orderBy('id', 'desc').first('id', 'hash')) as
    { id: string; hash: Buffer } | undefined;
  if (row === undefined) return null;
  return { id: row.id, hash: row.hash.toString('hex'), at: new Date().toISOString() };
}
