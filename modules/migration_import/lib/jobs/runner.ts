/**
 * An import job's background runs (validate, execute) on Ward's job queue. A request claims the
 * job row (its state; `worker_id` null until a worker starts it) and enqueues one queue job `run`
 * for it in the same transaction; the queue keeps at most one per import job, leases it to one backend, retries it
 * with back-off, and hands it to a live backend when the one running it dies. The handler takes
 * the row (a queued run, or one whose worker's lease lapsed), runs what its state says, fenced on
 * the row, and ends it `validated`/`invalid` or `succeeded`/`partially_succeeded`/`failed`. A run
 * that fails for a reason other than a lost lease or a stop ends `failed` (execute) or `invalid`
 * (validate) with the reason; executing it again resumes safely.
 *
 * The sweeper (sweeper.ts) enqueues runs the queue does not know of: a row left running by a
 * version of the module before the queue, or by a request whose enqueue never committed.
 */
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Acting, JobContext, Logger, WardSdk } from '../../../../src/sdk/index.ts';
import { executeRun } from './execute-run.ts';
import type { JobRow } from './job-row.ts';
import { peers } from './peers.ts';
import { claimExecute, claimValidate, takeRun } from './job-store.ts';
import { endedRun, Lease, LostLease } from './lease.ts';
import type { ImportSettings } from './settings.ts';
import { validateRun } from './validate-run.ts';

/** The queue job's name, within the module's queues. */
export const RUN = 'run';

export interface RunData {
  job: number;
  /** Who asked for the run (`user:<id>:…`), recorded with what the run writes as `job:<id>`. */
  by?: string;
}

export interface RunnerDeps {
  knex: Knex;
  storageDir: string;
  logger: Logger;
  settings: ImportSettings;
  sdk: WardSdk;
}

/** One queue job per import job, whichever run it is: the queue refuses a second while one is queued or running. */
const runKey = (id: number): string => `job-${id}`;

/** Enqueues the run of job `id`; false when the queue holds one for it already (that one will run it). */
export async function enqueueRun(
  sdk: WardSdk,
  id: number,
  trx?: Knex.Transaction,
  by?: string,
): Promise<boolean> {
  const data: RunData = by === undefined ? { job: id } : { job: id, by };
  const queued = await sdk.jobs.enqueue(RUN, data, { key: runKey(id), trx });
  return queued !== null;
}

/** Claims the job for validation and queues the run; undefined when its state does not allow it. */
export async function startValidate(deps: RunnerDeps, who: Acting, id: number): Promise<JobRow | undefined> {
  return who.transaction(async (trx, acting) => {
    const row = await claimValidate(trx, id, claim(deps.settings));
    if (row === undefined) return row;
    await enqueueRun(deps.sdk, id, trx, who.actor);
    await deps.sdk.audit.record(acting, { action: 'import.validate', kind: 'import_job', recordId: id });
    return row;
  });
}

/** Claims the job for execution (resuming a run whose worker died) and queues the run. */
export async function startExecute(
  deps: RunnerDeps,
  who: Acting,
  id: number,
): Promise<{ row: JobRow; resumed: boolean } | undefined> {
  return who.transaction(async (trx, acting) => {
    const claimed = await claimExecute(trx, id, claim(deps.settings));
    if (claimed === undefined) return claimed;
    await enqueueRun(deps.sdk, id, trx, who.actor);
    await deps.sdk.audit.record(acting, {
      action: 'import.execute',
      kind: 'import_job',
      recordId: id,
      detail: { phase: 'started', resumed: claimed.resumed },
    });
    return claimed;
  });
}

/** A queued run: no worker yet, and a lease that keeps other requests out while it waits to start. */
const claim = (settings: ImportSettings) => ({ workerId: null, leaseMs: settings.leaseMs });

/** The job row is held by a worker whose lease is live: not this attempt's to run yet. */
class WorkerBusy extends Error {
  constructor(id: number) {
    super(`migration_import job ${id} is held by a worker whose lease is live; the queue retries it`);
    this.name = 'WorkerBusy';
  }
}

/**
 * The queue job's handler: takes the job row and runs what its state says, then looks again: a
 * request that claimed the job for its next run while this one was ending could not queue a job of
 * its own (the queue still held this one), so this one runs it.
 */
export async function handleRun(deps: RunnerDeps, ctx: JobContext<RunData>): Promise<void> {
  const { knex, settings, logger } = deps;
  const workerId = `${hostname()}:${process.pid}:${ctx.id.slice(0, 8)}`;
  for (;;) {
    const taken = await takeRun(knex, ctx.data.job, { workerId, leaseMs: settings.leaseMs });
    if (taken === 'ended') return;
    // A worker the queue gave up on may still hold the row for a moment (its lease here outlives
    // the queue's), or only have stalled: the queue tries again after its back-off.
    if (taken === 'held') throw new WorkerBusy(ctx.data.job);
    const { row, from } = taken;
    if (from !== null)
      logger.info({ job: row.id, state: row.state }, 'migration_import: resuming an interrupted job');
    const lease = new Lease(knex, row.id, workerId, settings.leaseMs, ctx.signal);
    const run = row.state === 'validating' ? 'validate' : 'execute';
    try {
      await lease.keepWhile(() => work(deps, run, row, lease, ctx.data.by ?? null));
    } catch (error) {
      // Another worker took the row over: the run is its now.
      if (error instanceof LostLease) return lost(logger, lease, error);
      await failed(deps, run, lease, error, ctx.signal);
    }
  }
}

function lost(logger: Logger, lease: Lease, error: LostLease): void {
  logger.warn({ job: lease.jobId }, `migration_import: ${error.message}; this worker stopped`);
}

function work(
  deps: RunnerDeps,
  run: 'validate' | 'execute',
  row: JobRow,
  lease: Lease,
  by: string | null,
): Promise<void> {
  const { knex, storageDir, settings, sdk } = deps;
  return run === 'validate'
    ? validateRun(
        {
          knex,
          storageDir,
          sdk,
          maxDocumentBytes: peers(sdk).documents.maxBytes(),
          maxWarnings: settings.maxWarnings,
        },
        row,
        lease,
      )
    : executeRun(
        { knex, sdk, storageDir, batchSize: settings.batchSize, maxWarnings: settings.maxWarnings, by },
        row,
        lease,
      );
}

async function failed(
  deps: RunnerDeps,
  run: 'validate' | 'execute',
  lease: Lease,
  error: unknown,
  signal: AbortSignal,
): Promise<void> {
  const { knex, logger, sdk } = deps;
  // The backend is stopping, or the queue took the job away: the queue runs it again (here or on
  // another backend), which resumes after the last committed batch.
  if (signal.aborted || poolDestroyed(knex)) throw error;
  logger.error({ err: error, job: lease.jobId }, `migration_import: ${run} stopped`);
  const reason = sdk.errors.isWardError(error)
    ? error.message
    : `an internal error stopped it; the backend log has the details`;
  const stopped = `${run} stopped: ${reason}`;
  await lease
    .release(knex, {
      state: run === 'validate' ? 'invalid' : 'failed',
      error: stopped,
      ...(run === 'execute' ? { finished_at: knex.fn.now(), runs: endedRun(knex, 'failed', stopped) } : {}),
    })
    .catch((cause: unknown) =>
      logger.error({ err: cause, job: lease.jobId }, 'migration_import: could not record the failure'),
    );
}

/** After `knex.destroy()` the client has no pool: nothing more can be done in this process. */
const poolDestroyed = (knex: Knex): boolean => (knex.client as { pool?: unknown }).pool == null;
