/**
 * The fields a change touched, as the audit trail records them: `{field: [before, after]}` for
 * each field whose JSON differs. A create has no before (null), a delete no after.
 */
import { isDeepStrictEqual } from 'node:util';
import { jsonDetail } from './chain.ts';

export type Changes = Record<string, [unknown, unknown]>;

/** `ignore`: fields every write touches (`updatedAt`), which say nothing. */
export function changedFields(
  before: object | null,
  after: object | null,
  ignore: readonly string[] = ['createdAt', 'updatedAt'],
): Changes {
  const was = (jsonDetail(before) ?? {}) as Record<string, unknown>;
  const is = (jsonDetail(after) ?? {}) as Record<string, unknown>;
  // Field names are a record's columns: own members only, so "constructor" is not Object's, and
  // fromEntries so that "__proto__" is a field, not the prototype.
  const own = (record: Record<string, unknown>, field: string) =>
    Object.hasOwn(record, field) ? (record[field] ?? null) : null;
  const changes: Array<[string, [unknown, unknown]]> = [];
  for (const field of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (ignore.includes(field)) continue;
    const from = own(was, field);
    const to = own(is, field);
    if (!isDeepStrictEqual(from, to)) changes.push([field, [from, to]]);
  }
  return Object.fromEntries(changes);
}

/** A batch write's rows as `sdk.audit.batch` takes them: `id` when the row updated a record. */
export type BatchRow = { id?: number; patientId: number };

/** What a batch wrote: row i became `ids[i]`, an update when it came with an id; and whose records they are. */
export function batchDetail(
  rows: readonly BatchRow[],
  ids: readonly number[],
): { created: number[]; updated: number[]; patients: number[] } {
  return {
    created: ids.filter((_, index) => rows[index]!.id === undefined),
    updated: ids.filter((_, index) => rows[index]!.id !== undefined),
    patients: [...new Set(rows.map((row) => row.patientId))],
  };
}
