/** What the per-kind planners and writers share: the run's scope, planned steps, and rows that cannot be written. */
import type { Acting } from '../../../../../src/sdk/index.ts';
import type { ImportRules, PlanStep } from '../../index.ts';
import type { KindResults } from '../job-row.ts';
import type { Peers } from '../peers.ts';
import type { StoredWarning } from '../warning-store.ts';

export interface Scope {
  jobId: number;
  sourceSystem: string;
  /** The codes of the statuses Ward's appointments accept. */
  statuses: ReadonlySet<string>;
  /** The clinic modules' APIs, the only way the run reads and writes their records. */
  peers: Peers;
  /** Their rules, which the source is read against again. */
  rules: ImportRules;
  /** The job as who acts (`job:migration_import:<id>`): execute's batches commit in its transactions. */
  acting: Acting;
  /**
   * `preview` writes nothing, so a patient this source will create is not mapped yet: a reference
   * to an unmapped patient means one earlier in the file (validation refused any other).
   */
  mode: 'execute' | 'preview';
  /**
   * MRNs of the patients the run plans to create so far. A preview keeps them across batches (it
   * writes nothing, so the database cannot tell it that an earlier row took an MRN); execute
   * leaves it out and learns the same from its own inserts.
   */
  plannedMrns?: Set<string>;
}

/** One record's step and, unless it is a skip, the Ward columns to write. */
export interface Planned<Columns> {
  step: PlanStep;
  columns: Columns;
}

export interface KindPlan<Columns> {
  planned: Array<Planned<Columns>>;
  /** Records that cannot be written now (their patient or binary is missing): errors of the execute phase. */
  failures: StoredWarning[];
}

export interface KindOutcome {
  counts: KindResults;
  failures: StoredWarning[];
}

/** Codes of the warnings execute records for rows it could not write. */
export const EXECUTE_CODES = [
  'unknown_patient',
  'unknown_status',
  'binary_missing',
  'binary_mismatch',
  'mrn_taken',
  'write_failed',
] as const;
export type ExecuteCode = (typeof EXECUTE_CODES)[number];

export const failure = (
  item: { row: number },
  field: string,
  code: ExecuteCode,
  message: string,
): StoredWarning => ({ row: item.row, field, code, severity: 'error', message });

export function tally(plan: KindPlan<unknown>, created: number): KindOutcome['counts'] {
  const counts = { created: 0, updated: 0, skipped: 0, failed: plan.failures.length };
  for (const { step } of plan.planned) {
    if (step.action === 'update') counts.updated++;
    else if (step.action === 'skip') counts.skipped++;
  }
  counts.created = created;
  return counts;
}
