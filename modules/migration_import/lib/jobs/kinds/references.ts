/**
 * The patient an appointment or document belongs to, found through the import mapping; and, for
 * showing an existing record in import terms, the source id of the Ward patient it has now.
 */
import type { Knex } from 'knex';
import { sourceIds, wardIds } from '../source-map.ts';
import type { Scope } from './types.ts';

type Db = Knex | Knex.Transaction;

export interface PatientRefs {
  /** The Ward patient of a source patient id; undefined when not (yet) imported. */
  wardId(sourceId: string): number | undefined;
  /** The source id of a Ward patient this source imported, else a label naming the Ward patient. */
  sourceId(wardId: number): string;
}

export async function patientRefs(
  db: Db,
  scope: Scope,
  incoming: readonly string[],
  current: readonly number[],
): Promise<PatientRefs> {
  const forward = await wardIds(db, scope.sourceSystem, 'patient', incoming);
  const known = new Map([...forward].map(([source, ward]) => [ward, source]));
  const missing = current.filter((id) => !known.has(id));
  for (const [ward, source] of await sourceIds(db, scope.sourceSystem, 'patient', missing))
    known.set(ward, source);
  return {
    wardId: (sourceId) => forward.get(sourceId),
    sourceId: (wardId) => known.get(wardId) ?? `Ward patient ${wardId}`,
  };
}
