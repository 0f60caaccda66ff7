/**
 * The import mapping: (source system, kind, source id) → the Ward record made from it, and the
 * job that last wrote it. It is what makes execute idempotent: a record already mapped is updated
 * (or skipped when nothing changed), never created twice.
 */
import type { Knex } from 'knex';
import type { RecordKind } from '../index.ts';
import { LostLease, TABLE as JOBS } from './lease.ts';

export const SOURCE_MAP = 'migration_import_source_map';

type Db = Knex | Knex.Transaction;

/**
 * Ward ids of the given source ids that are mapped. One probe of the primary key per source id
 * (the `limit 1` keeps each a subquery of its own): a plain `= any` let the planner read every
 * mapping of the source system instead whenever it guessed the table small, which grows with
 * every batch an import writes.
 */
export async function wardIds(
  db: Db,
  sourceSystem: string,
  kind: RecordKind,
  sourceIds: readonly string[],
): Promise<Map<string, number>> {
  if (sourceIds.length === 0) return new Map();
  const { rows } = (await db.raw(
    `select m.source_id, m.ward_id from unnest(?::text[]) as s(id)
     cross join lateral (
       select source_id, ward_id from ${SOURCE_MAP}
       where source_system = ? and kind = ? and source_id = s.id limit 1
     ) as m`,
    [[...new Set(sourceIds)], sourceSystem, kind],
  )) as { rows: Array<{ source_id: string; ward_id: number }> };
  return new Map(rows.map((row) => [row.source_id, row.ward_id]));
}

/**
 * Takes the batch lock of `sourceSystem` (held until the transaction ends), then `wardIds` of
 * `sourceIds`, read once the lock is held: one round trip. The lock is the one
 * `lockSourceSystem` takes.
 */
export async function lockedWardIds(
  trx: Knex.Transaction,
  sourceSystem: string,
  kind: RecordKind,
  sourceIds: readonly string[],
): Promise<Map<string, number>> {
  const { rows } = (await trx.raw('select * from migration_import_locked_ward_ids(?, ?, ?::text[])', [
    sourceSystem,
    kind,
    [...new Set(sourceIds)],
  ])) as { rows: Array<{ source_id: string; ward_id: number }> };
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

/**
 * Maps each source id to its Ward record and the job, in one statement. The job row is checked
 * (and locked against deletion until the transaction ends) once for the whole batch, where a
 * foreign key checked it once per row; a job deleted meanwhile throws LostLease, writing nothing.
 * A mapping that already says this (same Ward record, same job) is left as it is, `updated_at`
 * included: rewriting it would only leave a dead row behind.
 */
export async function upsertMappings(
  db: Db,
  scope: { sourceSystem: string; jobId: number },
  kind: RecordKind,
  pairs: ReadonlyArray<{ sourceId: string; wardId: number }>,
): Promise<void> {
  if (pairs.length === 0) return;
  const { rows } = (await db.raw(
    `with job as (select id from ${JOBS} where id = ? for key share),
     written as (
       insert into ${SOURCE_MAP} as t (source_system, kind, source_id, ward_id, job_id)
       select ?, ?, m.s, m.w, job.id from job, unnest(?::text[], ?::int[]) as m(s, w)
       on conflict (source_system, kind, source_id)
       do update set ward_id = excluded.ward_id, job_id = excluded.job_id, updated_at = now()
       where (t.ward_id, t.job_id) is distinct from (excluded.ward_id, excluded.job_id)
     )
     select count(*)::int as jobs from job`,
    [
      scope.jobId,
      scope.sourceSystem,
      kind,
      pairs.map((pair) => pair.sourceId),
      pairs.map((pair) => pair.wardId),
    ],
  )) as { rows: Array<{ jobs: number }> };
  if (rows[0]!.jobs === 0) throw new LostLease(scope.jobId);
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
