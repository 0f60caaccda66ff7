/**
 * The order seed records can be written in: a record that references another record of the same
 * module needs that record's primary key first. Records are grouped in waves (each record only
 * references records of earlier waves) so that each wave can be written in a few batched
 * statements; within a wave, records keep their file order. Pure.
 */
import type { SeedProblem, SeedRecord } from './seed-file.ts';
import { parseRef } from './seed-file.ts';

/** A value referencing a record of another module, which must already be installed. */
export interface ForeignRef {
  record: SeedRecord;
  column: string;
  module: string;
  xmlId: string;
}

export type SeedOrder =
  | {
      ok: true;
      waves: SeedRecord[][];
      /** xml_ids that records of this module reference: their primary keys are needed once written. */
      referenced: Set<string>;
      foreign: ForeignRef[];
    }
  | { ok: false; problems: SeedProblem[] };

/** Expects unique xml_ids whose local references all exist (checkSeedFiles checks both first). */
export function orderSeeds(module: string, records: readonly SeedRecord[]): SeedOrder {
  let position: Map<string, number> | undefined;
  // needs[i]: positions of the records record i references; most records reference none.
  const needs: Array<number[] | undefined> = new Array<number[] | undefined>(records.length);
  const referenced = new Set<string>();
  const foreign: ForeignRef[] = [];
  records.forEach((record, index) => {
    for (const column in record.values) {
      const value = record.values[column]!;
      if (value === null || typeof value !== 'object') continue;
      const target = parseRef(value.$ref, module);
      if (target.module !== module) {
        foreign.push({ record, column, ...target });
        continue;
      }
      // Built on the first local reference: most seed sets have none, and 100,000 entries cost.
      position ??= new Map(records.map((other, at) => [other.xmlId, at]));
      const needed = position.get(target.xmlId);
      if (needed === undefined) continue;
      referenced.add(target.xmlId);
      const list = (needs[index] ??= []);
      if (!list.includes(needed)) list.push(needed);
    }
  });
  if (referenced.size === 0)
    return { ok: true, waves: records.length === 0 ? [] : [[...records]], referenced, foreign };

  // Kahn's algorithm, one level at a time; iterative, since chains can be long.
  const waiting = new Int32Array(records.length);
  const dependents: Array<number[] | undefined> = new Array<number[] | undefined>(records.length);
  needs.forEach((list, index) => {
    waiting[index] = list?.length ?? 0;
    for (const needed of list ?? []) (dependents[needed] ??= []).push(index);
  });
  const level = new Int32Array(records.length).fill(-1);
  let current = records.flatMap((_, index) => (waiting[index] === 0 ? [index] : []));
  for (let depth = 0; current.length > 0; depth++) {
    const next: number[] = [];
    for (const index of current) {
      level[index] = depth;
      for (const dependent of dependents[index] ?? []) {
        waiting[dependent] = waiting[dependent]! - 1;
        if (waiting[dependent] === 0) next.push(dependent);
      }
    }
    current = next;
  }

  const stuck = level.indexOf(-1);
  if (stuck !== -1) return { ok: false, problems: [cycleProblem(records, stuck, needs, level)] };
  const waves: SeedRecord[][] = [];
  records.forEach((record, index) => (waves[level[index]!] ??= []).push(record));
  return { ok: true, waves, referenced, foreign };
}

/** Follows unresolved references from `start` until one repeats: that is a circle. */
function cycleProblem(
  records: readonly SeedRecord[],
  start: number,
  needs: ReadonlyArray<readonly number[] | undefined>,
  level: Int32Array,
): SeedProblem {
  const path: number[] = [];
  let index = start;
  while (!path.includes(index)) {
    path.push(index);
    index = needs[index]!.find((needed) => level[needed] === -1)!;
  }
  const circle = [...path.slice(path.indexOf(index)), index].map((at) => records[at]!.xmlId);
  const record = records[index]!;
  return {
    file: record.file,
    path: `/records/${record.index}`,
    message: `records reference each other in a circle (${circle.join(' -> ')}); seed records are written one after another, so break the circle`,
  };
}
