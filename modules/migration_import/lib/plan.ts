/**
 * What executing one validated record would do, as data: create it, update the Ward record an
 * earlier run created from the same (source system, source id), or skip it because nothing would
 * change. Preview shows these steps; execute performs them, so a re-run updates instead of
 * duplicating and a retry after a partial failure skips what is already done. Nothing here reads
 * or writes: the caller looks up the mapping and the Ward record and passes them in.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ImportRecordItem, RecordKind, RecordOf } from './records.ts';

/** A record's importable values: everything but the source id, which lives in the mapping. */
export type Values<K extends RecordKind> = K extends RecordKind ? Omit<RecordOf[K], 'sourceId'> : never;

/** The Ward record the mapping points at, its current values converted to import terms by the caller. */
export interface Existing<K extends RecordKind = RecordKind> {
  wardId: string | number;
  values: Values<K>;
}

export type PlanAction = 'create' | 'update' | 'skip';

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export type PlanStep = {
  [K in RecordKind]: {
    kind: K;
    row: number;
    sourceId: string;
    /**
     * `create`: no mapping yet, `before` is null. `update`: `after` differs from `before` in `changes`.
     * `skip`: the Ward record already holds these values (`before` equals `after`).
     */
    action: PlanAction;
    wardId: string | number | null;
    before: Values<K> | null;
    after: Values<K>;
    changes: FieldChange[];
  };
}[RecordKind];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const carried = (value: unknown): boolean =>
  value !== undefined && !(Array.isArray(value) && value.length === 0);

/** True when every part `incoming` carries equals Ward's: the same address, written with fewer parts. */
const fewerParts = (incoming: Record<string, unknown>, ward: Record<string, unknown>): boolean =>
  Object.entries(incoming).every(([part, value]) => !carried(value) || isDeepStrictEqual(value, ward[part]));

/**
 * Fields the source does not carry keep Ward's value, so importing from a poorer format (CSV has
 * no phone) never erases what staff entered; a field the source does carry replaces Ward's whole.
 * An address that only leaves out parts of Ward's (Synthea's CSV has no country, its FHIR has) is
 * the same address and keeps Ward's, so two formats of one export never undo each other.
 */
function merge<T extends object>(before: T, incoming: T): T {
  const after = { ...before } as Record<string, unknown>;
  for (const [field, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    const was = after[field];
    if (isPlainObject(was) && isPlainObject(value) && fewerParts(value, was)) continue;
    after[field] = value;
  }
  return after as T;
}

function changesBetween(before: object, after: object): FieldChange[] {
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return fields
    .filter((field) => !isDeepStrictEqual(was[field], now[field]))
    .map((field) => ({ field, before: was[field], after: now[field] }));
}

/** `existing` is the Ward record mapped to this item's (source system, source id), or null when unmapped. */
export function planItem<K extends RecordKind>(
  item: Extract<ImportRecordItem, { kind: K }>,
  existing: Existing<K> | null,
): PlanStep {
  const { sourceId, ...values } = item.record;
  const step = { kind: item.kind, row: item.row, sourceId };
  if (existing === null) {
    return { ...step, action: 'create', wardId: null, before: null, after: values, changes: [] } as PlanStep;
  }
  const after = merge(existing.values as object, values);
  const changes = changesBetween(existing.values, after);
  return {
    ...step,
    action: changes.length === 0 ? 'skip' : 'update',
    wardId: existing.wardId,
    before: existing.values,
    after,
    changes,
  } as PlanStep;
}
