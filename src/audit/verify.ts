/**
 * Walking the audit chain (`ward audit verify`) and taking its checkpoint (`ward audit checkpoint`).
 * The walk starts at the oldest row kept: after a retention purge, from the hash of the last row
 * purged, which the latest `audit.purge` row recorded (its anchor, trusted as recorded; a kept
 * checkpoint vouches for it). It reads the rows in id order, a page at a time.
 */
import type { Knex } from 'knex';
import { GENESIS, linksTo, type Checkpoint, type StoredRow } from './chain.ts';

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

async function latestAnchor(knex: Knex): Promise<Anchor | null> {
  const row = (await knex('core_audit_event')
    .where({ action: 'audit.purge' })
    .orderBy('id', 'desc')
    .first('id', 'detail')) as { id: string; detail: PurgeDetail } | undefined;
  if (row === undefined) return null;
  return { purgeId: row.id, throughId: row.detail.throughId, hash: row.detail.lastHash };
}

const COLUMNS = [
  'id',
  'at',
  'actor',
  'user_id',
  'action',
  'module',
  'kind',
  'record_id',
  'patient_id',
  'client',
  'outcome',
  'detail',
  'hash',
];

interface DbRow {
  id: string;
  at: Date;
  actor: string;
  user_id: number | null;
  action: string;
  module: string | null;
  kind: string | null;
  record_id: string | null;
  patient_id: string | null;
  client: string | null;
  outcome: StoredRow['outcome'];
  detail: unknown;
  hash: Buffer;
}

const stored = (row: DbRow): StoredRow => ({
  id: row.id,
  at: row.at,
  actor: row.actor,
  userId: row.user_id,
  action: row.action,
  module: row.module,
  kind: row.kind,
  recordId: row.record_id,
  patientId: row.patient_id,
  client: row.client,
  outcome: row.outcome,
  detail: row.detail,
  hash: row.hash,
});

/**
 * Walks the chain from its oldest kept row. With `checkpoint`, the row it names must be there
 * with the hash it holds (or be the purge anchor): a chain rewritten from the start, or cut short,
 * fails against it.
 */
export async function verifyChain(knex: Knex, checkpoint: Checkpoint | null = null): Promise<Verdict> {
  const anchor = await latestAnchor(knex);
  let prev: Buffer = anchor === null ? GENESIS : Buffer.from(anchor.hash, 'hex');
  let after = anchor === null ? '0' : anchor.throughId;
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
        .limit(PAGE)) as DbRow[]
    ).map(stored);
    for (const row of page) {
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
