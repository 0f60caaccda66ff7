/**
 * What applying a module's seeds does to each record, decided before anything is written (Odoo's
 * rules): a record without a live tracked row is inserted; a tracked one is updated unless it is
 * noupdate (the user may have edited it); a tracked record gone from the seeds is deleted unless
 * noupdate. Pure: the database facts come in as `tracked` and `exists`.
 */
import type { SeedRecord } from './seed-file.ts';
import type { Tracked } from './seed-tracking.ts';

export interface WavePlan {
  /** Records new to core_external_id. */
  inserts: readonly SeedRecord[];
  /** Records whose row is missing but whose xml_id core_external_id has: the insert repoints it. */
  retracks: SeedRecord[];
  /** Tracked records that exist and are not noupdate: written only where a value differs. */
  updates: Array<{ record: SeedRecord; recordId: string }>;
}

/** A row to delete, and with it its tracking row unless that now points elsewhere (`untrack` false). */
export interface Deletion {
  xmlId: string;
  table: string;
  recordId: string;
  untrack: boolean;
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
  const plan: SeedPlan = { waves: [], known: new Map(), kept: 0, flags: [], deletions: [] };
  // First install: nothing to compare with, every record is inserted as it comes.
  if (tracked.length === 0) {
    plan.waves = waves.map((wave) => ({ inserts: wave, retracks: [], updates: [] }));
    return plan;
  }
  const byXmlId = new Map(tracked.map((row) => [row.xmlId, row]));
  for (const wave of waves) {
    const inserts: SeedRecord[] = [];
    const step: WavePlan = { inserts, retracks: [], updates: [] };
    for (const record of wave) {
      const row = byXmlId.get(record.xmlId);
      if (row === undefined || row.table !== record.table || !exists(row)) {
        (row === undefined ? inserts : step.retracks).push(record);
        // A record moved to another table: its old row is ours to remove, unless the user owns it
        // (a row already gone is fine).
        if (row !== undefined && row.table !== record.table && !row.noupdate)
          plan.deletions.push(trackedDeletion(row, false));
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
  const seeded = new Set(waves.flat().map((record) => record.xmlId));
  for (const row of tracked) {
    if (seeded.has(row.xmlId)) continue;
    if (row.noupdate) plan.kept++;
    else plan.deletions.push(trackedDeletion(row, true));
  }
  plan.deletions.sort((a, b) => b.order - a.order);
  return plan;
}

/** The deletion of a tracked row; `untrack` false keeps the tracking row. */
export const trackedDeletion = (row: Tracked, untrack: boolean): Deletion => ({
  xmlId: row.xmlId,
  table: row.table,
  recordId: row.recordId,
  untrack,
  order: row.id,
});
