/**
 * Who runs an import job's background run, and proof that they still do. The run is a job on
 * Ward's job queue (sdk.jobs), which leases it to one backend and hands it to another when that one
 * dies; the job row mirrors the attempt that holds it (`worker_id`, `lease_expires_at`, both judged
 * by the database clock), renewed while it works, and every write the run makes is fenced on still
 * holding it. The queue cannot stop a backend that merely stalled: such a worker finds out at its
 * next fenced write that the row names another, and stops, so two workers never both write. The
 * same write stops the run once its job's signal aborts (the backend stops, or the queue took the
 * job away).
 */
import type { Knex } from 'knex';

export const TABLE = 'migration_import_job';

/** The lease moved to another worker (or the job was reset): stop without touching the job. */
export class LostLease extends Error {
  constructor(jobId: number) {
    super(`the lease on migration_import job ${jobId} was taken over by another worker`);
    this.name = 'LostLease';
  }
}

export const leaseUntil = (knex: Knex, leaseMs: number): Knex.Raw =>
  knex.raw(`now() + ? * interval '1 millisecond'`, [leaseMs]);

export const LAPSED = '(lease_expires_at is null or lease_expires_at < now())';

/**
 * The value of `runs` that appends the run a release ends (with the results it committed) to the
 * job's history: pass it with the final state in `Lease.release`.
 */
export const endedRun = (knex: Knex, state: string, error: string | null): Knex.Raw =>
  knex.raw(
    `runs || jsonb_build_array(jsonb_build_object(
       'run', jsonb_array_length(runs) + 1, 'startedAt', started_at, 'finishedAt', now(),
       'state', ?::text, 'results', results, 'error', ?::text))`,
    [state, error],
  );

export class Lease {
  readonly jobId: number;
  readonly workerId: string;
  readonly #knex: Knex;
  readonly #leaseMs: number;
  readonly #signal: AbortSignal | undefined;

  constructor(knex: Knex, jobId: number, workerId: string, leaseMs: number, signal?: AbortSignal) {
    this.#knex = knex;
    this.jobId = jobId;
    this.workerId = workerId;
    this.#leaseMs = leaseMs;
    this.#signal = signal;
  }

  /** The job row, locked to this worker: `update`s through it are fenced. */
  mine(db: Knex | Knex.Transaction = this.#knex): Knex.QueryBuilder {
    return db(TABLE).where({ id: this.jobId, worker_id: this.workerId });
  }

  /**
   * Updates the job row (renewing the lease with it) or throws LostLease; throws the signal's reason
   * instead, writing nothing, once the run's signal has aborted.
   */
  async update(db: Knex | Knex.Transaction, values: Record<string, unknown> = {}): Promise<void> {
    this.#signal?.throwIfAborted();
    const updated = await this.mine(db).update({
      ...values,
      lease_expires_at: leaseUntil(this.#knex, this.#leaseMs),
      updated_at: this.#knex.fn.now(),
    });
    if (updated === 0) throw new LostLease(this.jobId);
  }

  /** Ends the run: the final values, and the lease released. */
  async release(db: Knex | Knex.Transaction, values: Record<string, unknown>): Promise<void> {
    const updated = await this.mine(db).update({
      ...values,
      worker_id: null,
      lease_expires_at: null,
      updated_at: this.#knex.fn.now(),
    });
    if (updated === 0) throw new LostLease(this.jobId);
  }

  /**
   * Renews the lease every third of its length while `work` runs, so a slow stretch without
   * writes (a long validation) does not let it lapse. Renewal errors are left to the next fenced write.
   */
  async keepWhile<T>(work: () => Promise<T>): Promise<T> {
    const timer = setInterval(() => {
      this.update(this.#knex).catch(() => undefined);
    }, this.#leaseMs / 3);
    timer.unref();
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }
}
