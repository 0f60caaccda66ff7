/**
 * The patient an appointment or document belongs to, found through the import mapping; and, for
 * showing an existing record in import terms, the source id of the Ward patient it has now.
 */
import type { Acting } from '../../../../../src/sdk/index.ts';
import { sourceIds, wardIds } from '../source-map.ts';
import type { StoredWarning } from '../warning-store.ts';
import { failure, type Scope } from './types.ts';

export interface PatientRefs {
  /** The Ward patient of a source patient id; undefined when not (yet) imported. */
  wardId(sourceId: string): number | undefined;
  /** The source id of a Ward patient this source imported, else a label naming the Ward patient. */
  sourceId(wardId: number): string;
}

export async function patientRefs(
  acting: Acting,
  scope: Scope,
  incoming: readonly string[],
  current: readonly number[],
): Promise<PatientRefs> {
  const db = acting.knex;
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

/**
 * For records that belong to a patient (appointments, documents): the Ward records this source
 * system imported before for `items` (`load` asks their module), and the patient references both
 * the items and those records need, in three queries and one call whatever the batch size.
 */
export async function mappedPatientRecords<Row extends { id: number; patientId: number }>(
  acting: Acting,
  scope: Scope,
  kind: 'appointment' | 'document',
  load: (acting: Acting, ids: readonly number[]) => Promise<Row[]>,
  items: ReadonlyArray<{ record: { sourceId: string; patientSourceId: string } }>,
): Promise<{ existing: (sourceId: string) => Row | undefined; refs: PatientRefs }> {
  const mapped = await wardIds(
    acting.knex,
    scope.sourceSystem,
    kind,
    items.map((item) => item.record.sourceId),
  );
  const rows = mapped.size === 0 ? [] : await load(acting, [...mapped.values()]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const refs = await patientRefs(
    acting,
    scope,
    items.map((item) => item.record.patientSourceId),
    rows.map((row) => row.patientId),
  );
  return { existing: (sourceId) => byId.get(mapped.get(sourceId) ?? -1), refs };
}

/**
 * Why a record whose patient has no Ward row (`patientId` null) cannot be written, or null when
 * it can: execute refuses it; a preview lets it through, its patient being earlier in the source.
 */
export function unknownPatient(
  scope: Scope,
  item: { row: number; record: { patientSourceId: string } },
  patientId: number | null,
): StoredWarning | null {
  if (patientId !== null || scope.mode !== 'execute') return null;
  return failure(
    item,
    'patientSourceId',
    'unknown_patient',
    `patient ${JSON.stringify(item.record.patientSourceId)} has not been imported from ${scope.sourceSystem} (did its row fail?); import the patient, then execute the job again`,
  );
}
