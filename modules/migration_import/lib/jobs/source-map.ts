/**
 * The import mapping: (source system, kind, source id) → the Ward record made from it, and the
 * job that last wrote it. It is what makes execute idempotent: a record already mapped is updated
 * (or skipped when nothing changed), never created twice.
 */
import type { Knex } from 'knex';
import type { RecordKind } from '../index.ts';

export const SOURCE_MAP = 'migration_import_source_map';

type Db = Knex | Knex.Transaction;

/** Ward ids of the given source ids that are mapped. */
export async function wardIds(
  db: Db,
  sourceSystem: string,
  kind: RecordKind,
  sourceIds: readonly string[],
): Promise<Map<string, number>> {
  if (sourceIds.length === 0) return new Map();
  const rows = (await db(SOURCE_MAP)
    .where({ source_system: sourceSystem, kind })
    .whereRaw('source_id = any(?::text[])', [[...new Set(sourceIds)]])
    .select('source_id', 'ward_id')) as Array<{ source_id: string; ward_id: number }>;
  return new Map(rows.map((row) => [row.source_id, row.ward_id]));
}

/** Source ids of the given Ward ids, for showing an existing record in import terms. */
export async function sourceIds(
  db: Db,
  sourceSystem: string,
  kind: RecordKind,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = (await db(SOURCE_MAP)
    .where({ source_system: sourceSystem, kind })
    .whereRaw('ward_id = any(?::int[])', [[...new Set(ids)]])
    .select('source_id', 'ward_id')) as Array<{ source_id: string; ward_id: number }>;
  return new Map(rows.map((row) => [row.ward_id, row.source_id]));
}

export async function upsertMappings(
  db: Db,
  scope: { sourceSystem: string; jobId: number },
  kind: RecordKind,
  pairs: ReadonlyArray<{ sourceId: string; wardId: number }>,
): Promise<void> {
  if (pairs.length === 0) return;
  await db.raw(
    `insert into ${SOURCE_MAP} (source_system, kind, source_id, ward_id, job_id)
     select ?, ?, m.s, m.w, ? from unnest(?::text[], ?::int[]) as m(s, w)
     on conflict (source_system, kind, source_id)
     do update set ward_id = excluded.ward_id, job_id = excluded.job_id, updated_at = now()`,
    [
      scope.sourceSystem,
      kind,
      scope.jobId,
      pairs.map((pair) => pair.sourceId),
      pairs.map((pair) => pair.wardId),
    ],
  );
}

/** Whether a patient with this source id was imported before: validation's `knownPatient`, with a bounded cache. */
export function knownPatients(knex: Knex, sourceSystem: string): (sourceId: string) => Promise<boolean> {
  const cache = new Map<string, boolean>();
  return async (sourceId) => {
    const cached = cache.get(sourceId);
    if (cached !== undefined) return cached;
    const known = (await wardIds(knex, sourceSystem, 'patient', [sourceId])).has(sourceId);
    // Encounters of one patient come together; a small cache catches them without growing with the file.
    if (cache.size >= 10_000) cache.clear();
    cache.set(sourceId, known);
    return known;
  };
}
