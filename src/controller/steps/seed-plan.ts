/**
 * What applying a module's seeds does to each record, decided before anything is written (Odoo's
 * rules): a record without a live tracked row is inserted; a tracked one is updated unless it is
 * noupdate (the user may have edited it); a tracked record gone from the seeds is deleted unless
 * noupdate. Pure: the database facts come in as `tracked` and `exists`.
 */
import type { SeedRecord } from './seed-file.ts';
import type { Tracked } from './seed-tracking.ts';

export interface WavePlan {
  /** `retrack`: core_external_id already has a row for the xml_id, which the insert repoints. */
  inserts: Array<{ record: SeedRecord; retrack: boolean }>;
  /** Tracked records that exist and are not noupdate: written only where a value differs. */
  updates: Array<{ record: SeedRecord; recordId: string }>;
}

/** A row to delete. `trackingId` is null when the tracking row now points elsewhere and stays. */
export interface Deletion {
  xmlId: string;
  table: string;
  recordId: string;
  trackingId: number | null;
  /** Creation order of the row: deletions run newest first, so children go before their parents. */
  order: number;
}

export interface SeedPlan {
  waves: WavePlan[];
  /** Primary keys of this module's records that stay where they are, by xml_id. */
  known: Map<string, string>;
  /** noupdate records left as they are, in the seeds or not. */
  kept: number;
  /** Tracking rows whose noupdate flag the seeds changed. */
  flags: Array<{ xmlId: string; noupdate: boolean }>;
  /** Newest first. */
  deletions: Deletion[];
}

export function planSeeds(
  waves: readonly SeedRecord[][],
  tracked: readonly Tracked[],
  exists: (row: Tracked) => boolean,
): SeedPlan {
  const byXmlId = new Map(tracked.map((row) => [row.xmlId, row]));
  const plan: SeedPlan = { waves: [], known: new Map(), kept: 0, flags: [], deletions: [] };
  for (const wave of waves) {
    const step: WavePlan = { inserts: [], updates: [] };
    for (const record of wave) {
      const row = byXmlId.get(record.xmlId);
      if (row === undefined || row.table !== record.table || !exists(row)) {
        step.inserts.push({ record, retrack: row !== undefined });
        // A record moved to another table: its old row is ours to remove, unless the user owns it
        // (a row already gone is fine).
        if (row !== undefined && row.table !== record.table && !row.noupdate)
          plan.deletions.push(trackedDeletion(row, null));
        continue;
      }
      plan.known.set(record.xmlId, row.recordId);
      if (row.noupdate !== record.noupdate)
        plan.flags.push({ xmlId: record.xmlId, noupdate: record.noupdate });
      if (record.noupdate) plan.kept++;
      else step.updates.push({ record, recordId: row.recordId });
    }
    plan.waves.push(step);
  }
  const seeded = new Set(tracked.length === 0 ? [] : waves.flat().map((record) => record.xmlId));
  for (const row of tracked) {
    if (seeded.has(row.xmlId)) continue;
    if (row.noupdate) plan.kept++;
    else plan.deletions.push(trackedDeletion(row, row.id));
  }
  plan.deletions.sort((a, b) => b.order - a.order);
  return plan;
}

/** The deletion of a tracked row; `trackingId` null keeps the tracking row. */
export const trackedDeletion = (row: Tracked, trackingId: number | null): Deletion => ({
  xmlId: row.xmlId,
  table: row.table,
  recordId: row.recordId,
  trackingId,
  order: row.id,
});
