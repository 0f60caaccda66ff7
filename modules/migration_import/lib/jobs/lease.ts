/**
 * Who runs a job in the background, and proof that they still do. A worker holds a lease on the
 * job row (`worker_id`, `lease_expires_at`, both judged by the database clock) and renews it while
 * it works; every write it makes is fenced on still holding it. A worker that died (killed
 * process, lost host) stops renewing, its lease lapses, and any backend may take the job over:
 * the sweeper of every running backend, or POST execute/validate. A worker that merely stalled
 * and lost its lease finds out at its next fenced write and stops, so two workers never both write.
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

  constructor(knex: Knex, jobId: number, workerId: string, leaseMs: number) {
    this.#knex = knex;
    this.jobId = jobId;
    this.workerId = workerId;
    this.#leaseMs = leaseMs;
  }

  /** The job row, locked to this worker: `update`s through it are fenced. */
  mine(db: Knex | Knex.Transaction = this.#knex): Knex.QueryBuilder {
    return db(TABLE).where({ id: this.jobId, worker_id: this.workerId });
  }

  /** Updates the job row (renewing the lease with it) or throws LostLease. */
  async update(db: Knex | Knex.Transaction, values: Record<string, unknown> = {}): Promise<void> {
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
