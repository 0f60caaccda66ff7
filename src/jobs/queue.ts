/**
 * Ward's background jobs, on pg-boss: a PostgreSQL job queue that keeps its jobs in a schema of its
 * own (`ward_jobs`), migrates that schema itself under an advisory lock when a backend starts it,
 * and gives each job what a module's background work needs: retries with exponential back-off, a
 * lease that every running job renews (pg-boss's heartbeat), so that a job whose backend died is
 * retried on a live replica, and an AbortSignal per job that fires when it is cancelled, its lease
 * is lost, or the backend stops. Ward adds progress (a table beside pg-boss's) and the acting
 * context a handler gets (`job:<id>`).
 *
 * The engine starts on first use: a backend whose modules define no job never creates the schema,
 * nor loads pg-boss (about 130 ms of module loading, which every restart would pay for).
 * It runs its SQL through Ward's own knex pool (pg-boss's knex adapter), so enqueueing can share
 * the caller's transaction and the backend opens no second pool. Without LISTEN (knex pools give
 * none), a worker polls every half second.
 */
import type { Knex } from 'knex';
import type { Db, Job, PgBoss } from 'pg-boss';
import { WardError } from '../errors/ward-error.ts';
import type { Logger } from '../logger.ts';
import { attemptEnded, unwatchJobs, watchJobs } from './queue-metrics.ts';

/** The schema pg-boss installs into and Ward's progress table lives in. */
export const JOBS_SCHEMA = 'ward_jobs';
const PROGRESS = `${JOBS_SCHEMA}.progress`;

/** How one kind of job runs: what its module's `define` asks for, with Ward's defaults filled in. */
export interface JobDefinition {
  /** Retries after the first attempt fails or its backend dies (default 5). */
  retryLimit: number;
  /** Seconds before the first retry, doubled (with jitter) for each next one (default 1). */
  retryDelaySeconds: number;
  /** Seconds a running job may go without renewing its lease before another replica takes it (at least 10, default 30). */
  leaseSeconds: number;
  /** Longest one attempt may run, in seconds (default 12 hours). */
  timeoutSeconds: number;
  /** Jobs of this kind one backend runs at once (default 2). */
  concurrency: number;
  /** At most one job per key queued or running at a time: a second enqueue with the key returns null. */
  uniquePerKey: boolean;
}

export const DEFAULT_DEFINITION: JobDefinition = {
  retryLimit: 5,
  retryDelaySeconds: 1,
  leaseSeconds: 30,
  timeoutSeconds: 12 * 3600,
  concurrency: 2,
  uniquePerKey: false,
};

/** What a running job's handler receives. */
export interface RunningJob {
  id: string;
  /** The queue: `<module>.<name>`. */
  queue: string;
  data: unknown;
  /** 1 for the first attempt. */
  attempt: number;
  signal: AbortSignal;
  progress(done: number, total: number): Promise<void>;
}

export type QueueHandler = (job: RunningJob) => Promise<void>;

export type JobState = 'queued' | 'running' | 'retrying' | 'completed' | 'cancelled' | 'failed';

export interface JobStatus {
  id: string;
  queue: string;
  state: JobState;
  /** Attempts started so far. */
  attempts: number;
  progress: { done: number; total: number } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

const STATES: Record<string, JobState> = {
  created: 'queued',
  retry: 'retrying',
  active: 'running',
  completed: 'completed',
  cancelled: 'cancelled',
  failed: 'failed',
};

/** A job id as pg-boss makes them; anything else names no job (and would be an SQL error as a uuid). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** pg-boss polls for new jobs this often; it is also how soon an enqueued job starts at most. */
const POLL_SECONDS = 0.5;
/**
 * How often a backend looks for jobs whose lease lapsed (pg-boss's supervise and queue-monitor
 * intervals, which both gate the pass): with the lease, how soon a dead backend's job moves.
 */
const SUPERVISE_SECONDS = 2;

export class JobQueue {
  readonly #knex: Knex;
  readonly #logger: Logger;
  #engine: Promise<PgBoss> | null = null;
  /** pg-boss's knex adapter, once loaded: `enqueue` in a caller's transaction goes through it. */
  #adapter: ((db: Knex | Knex.Transaction) => Db) | null = null;
  readonly #defined = new Set<string>();
  #stopped = false;

  constructor(knex: Knex, logger: Logger) {
    this.#knex = knex;
    this.#logger = logger;
  }

  /** Creates (or updates) the queue and runs `handler` for its jobs on this backend. */
  async define(queue: string, definition: JobDefinition, handler: QueueHandler): Promise<void> {
    const boss = await this.#boss();
    const options = {
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: true,
      heartbeatSeconds: Math.max(10, Math.round(definition.leaseSeconds)),
      expireInSeconds: definition.timeoutSeconds,
    };
    // Creating is idempotent (pg-boss locks and ignores a queue that exists); the update carries a
    // new release's options to a queue an older one created. The policy stays as first created.
    await boss.createQueue(queue, { ...options, policy: definition.uniquePerKey ? 'exclusive' : 'standard' });
    await boss.updateQueue(queue, options);
    this.#defined.add(queue);
    await boss.work<unknown>(
      queue,
      {
        localConcurrency: definition.concurrency,
        pollingIntervalSeconds: POLL_SECONDS,
        includeMetadata: true,
      },
      async ([job]) => {
        try {
          await handler(this.#running(queue, job!));
        } catch (error) {
          attemptEnded(queue, true, job!.retryCount >= definition.retryLimit);
          throw error;
        }
        attemptEnded(queue, false, false);
      },
    );
  }

  /**
   * Adds a job; with `key` and a queue defined `uniquePerKey`, null when one with that key is queued
   * or running already. `db`: a transaction to enqueue in, so the job exists only if it commits.
   */
  async enqueue(
    queue: string,
    data: object,
    options: { key?: string; startAfterSeconds?: number; db?: Knex | Knex.Transaction } = {},
  ): Promise<string | null> {
    const boss = await this.#boss();
    if (!this.#defined.has(queue) && (await boss.getQueue(queue)) === null)
      throw new WardError(
        'job_undefined',
        `there is no job queue ${queue}`,
        "define the job (sdk.jobs.define) in the module's services before enqueueing it",
      );
    return boss.send(queue, data, {
      ...(options.key === undefined ? {} : { singletonKey: options.key }),
      ...(options.startAfterSeconds === undefined ? {} : { startAfter: options.startAfterSeconds }),
      ...(options.db === undefined ? {} : { db: this.#adapter!(options.db) }),
    });
  }

  /** Cancels a queued or running job (a running one sees its signal abort); false when it had ended. */
  async cancel(queue: string, id: string): Promise<boolean> {
    if (!UUID.test(id)) return false;
    const boss = await this.#boss();
    // pg-boss's declared response type is empty; the object carries the count it changed.
    const response = (await boss.cancel(queue, id)) as { affected?: number };
    return (response.affected ?? 0) > 0;
  }

  async status(queue: string, id: string): Promise<JobStatus | null> {
    if (!UUID.test(id)) return null;
    const boss = await this.#boss();
    const [job] = await boss.findJobs(queue, { id });
    if (job === undefined) return null;
    const row = (await this.#knex(PROGRESS).where({ job_id: id }).first()) as
      { done: string; total: string } | undefined;
    return {
      id: job.id,
      queue,
      state: STATES[job.state] ?? 'queued',
      attempts: job.startedOn === null || job.startedOn === undefined ? 0 : job.retryCount + 1,
      progress: row === undefined ? null : { done: Number(row.done), total: Number(row.total) },
      createdAt: job.createdOn,
      startedAt: job.startedOn ?? null,
      finishedAt: job.completedOn,
    };
  }

  /**
   * Stops taking jobs and gives running ones `graceMs` to finish; then their signals abort, and
   * pg-boss retries each later (here or on another replica). Call before the pool is destroyed.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopped = true;
    unwatchJobs(this.#knex);
    if (this.#engine === null) return;
    const boss = await this.#engine.catch(() => null);
    await boss?.stop({ graceful: true, timeout: graceMs, close: false });
  }

  #running(queue: string, job: Job<unknown>): RunningJob {
    return {
      id: job.id,
      queue,
      data: job.data,
      attempt: job.retryCount + 1,
      signal: job.signal,
      progress: async (done, total) => {
        await this.#knex(PROGRESS)
          .insert({ job_id: job.id, done, total, updated_at: this.#knex.fn.now() })
          .onConflict('job_id')
          .merge();
      },
    };
  }

  #boss(): Promise<PgBoss> {
    if (this.#stopped)
      return Promise.reject(
        new WardError(
          'jobs_stopped',
          'background jobs have stopped: the backend is stopping',
          'try again once it is back',
        ),
      );
    this.#engine ??= this.#start();
    return this.#engine;
  }

  async #start(): Promise<PgBoss> {
    const { PgBoss, fromKnex } = await import('pg-boss');
    this.#adapter = fromKnex;
    const boss = new PgBoss({
      db: fromKnex(this.#knex),
      schema: JOBS_SCHEMA,
      superviseIntervalSeconds: SUPERVISE_SECONDS,
      monitorIntervalSeconds: SUPERVISE_SECONDS,
      registerInstance: false,
      openTelemetry: { enabled: false },
    });
    boss.on('error', (error) =>
      this.#logger.warn({ err: error }, 'background jobs: the job queue reported an error'),
    );
    await boss.start();
    // Beside pg-boss's tables, created the way pg-boss creates its own: at start, under an
    // advisory lock, so replicas starting together do not race to create it.
    await this.#knex.transaction(async (trx) => {
      await trx.raw(`select pg_advisory_xact_lock(hashtext(?))`, [PROGRESS]);
      await trx.raw(
        `create table if not exists ${PROGRESS} (
           job_id uuid primary key, done bigint not null, total bigint not null,
           updated_at timestamptz not null default now())`,
      );
      // pg-boss deletes a finished job after a week; its progress goes a week after that.
      await trx(PROGRESS).where('updated_at', '<', trx.raw(`now() - interval '14 days'`)).delete();
    });
    // Only now: before the engine starts the schema may not exist, and there is nothing to count.
    watchJobs(this.#knex, JOBS_SCHEMA);
    return boss;
  }
}
