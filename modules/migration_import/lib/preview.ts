/** Preview of a whole job in bounded memory: counts per kind and action, and the first steps of each action. */
import type { PlanAction, PlanStep } from './plan.ts';
import type { RecordKind } from './records.ts';

export type ActionCounts = Record<PlanAction, number>;

export interface Preview {
  counts: Record<RecordKind, ActionCounts>;
  totals: ActionCounts;
  /** The first `sampleSize` steps of each action, in source order, with their before and after. */
  samples: Record<PlanAction, PlanStep[]>;
}

const zero = (): ActionCounts => ({ create: 0, update: 0, skip: 0 });

export class PreviewBuilder {
  readonly #preview: Preview = {
    counts: { patient: zero(), appointment: zero(), document: zero() },
    totals: zero(),
    samples: { create: [], update: [], skip: [] },
  };
  readonly #sampleSize: number;

  constructor(sampleSize = 20) {
    this.#sampleSize = sampleSize;
  }

  add(step: PlanStep): void {
    this.#preview.counts[step.kind][step.action]++;
    this.#preview.totals[step.action]++;
    const samples = this.#preview.samples[step.action];
    if (samples.length < this.#sampleSize) samples.push(step);
  }

  result(): Preview {
    return structuredClone(this.#preview);
  }
}
