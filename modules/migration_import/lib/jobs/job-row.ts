/**
 * A job as stored (`migration_import_job`) and as the API shows it. States:
 * created → validating → validated | invalid; validated → executing → succeeded |
 * partially_succeeded | failed; an executed job may be executed again (a re-run updates, never
 * duplicates). `validating` and `executing` are background runs held by a worker's lease.
 */
import type { ImportFormat, RecordKind, Severity } from '../index.ts';

export const JOB_STATES = [
  'created',
  'validating',
  'validated',
  'invalid',
  'executing',
  'succeeded',
  'partially_succeeded',
  'failed',
] as const;
export type JobState = (typeof JOB_STATES)[number];

export type Outcome = 'created' | 'updated' | 'skipped' | 'failed';
export type KindResults = Record<Outcome, number>;
export type Results = Record<RecordKind, KindResults>;

export interface ValidationCounts {
  /** Records that passed every check, per kind: what execute will write. */
  records: Record<RecordKind, number>;
  warnings: Record<Severity, number>;
}

/** One finished execute run, as the job's history keeps it. */
export interface RunRecord {
  /** 1 for the job's first run. */
  run: number;
  startedAt: string;
  finishedAt: string;
  state: Extract<JobState, 'succeeded' | 'partially_succeeded' | 'failed'>;
  results: Partial<Results>;
  error: string | null;
}

export interface JobRow {
  id: number;
  source_system: string;
  format: ImportFormat;
  state: JobState;
  source_bytes: string | number;
  source_sha256: string;
  counts: Partial<ValidationCounts>;
  results: Partial<Results>;
  /** Every finished execute run, oldest first; `results` is the latest (or the one in hand). */
  runs: RunRecord[];
  rows_total: number;
  rows_done: number;
  worker_id: string | null;
  lease_expires_at: Date | null;
  error: string | null;
  created_by_id: number | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  validated_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  /** When the job's source, binaries and warnings were deleted, and by whom (`retention`: the sweeper). */
  purged_at: Date | null;
  purged_by: string | null;
}

export const emptyResults = (): Results => ({
  patient: { created: 0, updated: 0, skipped: 0, failed: 0 },
  appointment: { created: 0, updated: 0, skipped: 0, failed: 0 },
  document: { created: 0, updated: 0, skipped: 0, failed: 0 },
});

/**
 * What GET /jobs and GET /jobs/{id} answer. `progress` is the current run's: while validating, the
 * rows read of the rows estimated from the bytes read; once validated (or invalid), every record
 * to write counted, 100%; while executing and after, the records written of those.
 */
export function jobView(row: JobRow) {
  const total = row.rows_total;
  const running = row.state === 'validating' || row.state === 'executing';
  // A finished validation leaves `rows_done` at 0, execute's checkpoint: it read everything.
  const validated = row.state === 'validated' || row.state === 'invalid';
  const done = validated ? total : row.rows_done;
  return {
    id: row.id,
    sourceSystem: row.source_system,
    format: row.format,
    state: row.state,
    source: { bytes: Number(row.source_bytes), sha256: row.source_sha256 },
    counts: row.counts,
    progress: {
      done,
      total,
      percent:
        total === 0 ? (validated || row.state === 'succeeded' ? 100 : 0) : Math.floor((done / total) * 100),
    },
    results: row.results,
    runs: row.runs,
    error: row.error,
    worker: running ? { leaseExpiresAt: row.lease_expires_at } : null,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    validatedAt: row.validated_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    purgedAt: row.purged_at,
    purgedBy: row.purged_by,
  };
}

export type JobView = ReturnType<typeof jobView>;
