/**
 * Starts and supervises this backend's background runs (validate, execute). A run is started
 * only after its lease is claimed in the database, so across replicas each job has one worker.
 * The sweeper takes over runs whose worker died (lease lapsed): at start-up, when a killed
 * backend left a job `validating` or `executing`, and every half lease afterwards, when
 * another replica died. A run that fails for a reason other than a lost lease ends `failed`
 * (execute) or `invalid` (validate) with the reason; executing it again resumes safely. Each
 * sweep also removes the partial files of uploads (sources, binaries) a dead backend left behind.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Logger, WardSdk } from '../../../../src/sdk/index.ts';
import { executeRun } from './execute-run.ts';
import { peers } from './peers.ts';
import type { JobRow } from './job-row.ts';
import { claimExecute, claimValidate, orphanedRuns } from './job-store.ts';
import { endedRun, Lease, LostLease } from './lease.ts';
import { purgeExpired } from './purge.ts';
import type { ImportSettings } from './settings.ts';
import { removeAbandonedSources } from './source-file.ts';
import { validateRun } from './validate-run.ts';

export interface RunnerDeps {
  knex: Knex;
  storageDir: string;
  logger: Logger;
  settings: ImportSettings;
  sdk: WardSdk;
}

type Run = 'validate' | 'execute';

export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly #deps: RunnerDeps;
  readonly #active = new Map<number, Promise<void>>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
  }

  /** Claims the job for validation and starts it; undefined when its state does not allow it. */
  async validate(id: number): Promise<JobRow | undefined> {
    const row = await claimValidate(this.#deps.knex, id, this.#claim());
    if (row !== undefined) this.#start('validate', row);
    return row;
  }

  /** Claims the job for execution (resuming a run whose worker died) and starts it. */
  async execute(id: number): Promise<{ row: JobRow; resumed: boolean } | undefined> {
    const claimed = await claimExecute(this.#deps.knex, id, this.#claim());
    if (claimed !== undefined) this.#start('execute', claimed.row);
    return claimed;
  }

  /** Resolves when every run this runner started has ended (tests, graceful stops). */
  async idle(): Promise<void> {
    while (this.#active.size > 0) await Promise.all(this.#active.values());
  }

  startSweeper(): void {
    const sweep = () => {
      this.sweep().catch((error: unknown) => {
        if (poolDestroyed(this.#deps.knex)) this.stopSweeper();
        else this.#deps.logger.warn({ err: error }, 'migration_import: looking for interrupted jobs failed');
      });
    };
    setImmediate(sweep);
    this.#sweeper = setInterval(sweep, this.#deps.settings.leaseMs / 2);
    // The sweeper must never keep a stopping backend (or a test process) alive.
    this.#sweeper.unref();
  }

  stopSweeper(): void {
    clearInterval(this.#sweeper);
  }

  /**
   * Takes over every job whose background run has no live worker, then purges the raw data of
   * jobs past WARD_IMPORT_RETENTION_DAYS, then removes the uploads dead backends left unfinished.
   */
  async sweep(): Promise<number[]> {
    const taken = await this.#resumeOrphans();
    const { storageDir, logger, settings, sdk } = this.#deps;
    const acting = sdk.jobActing('migration_import:retention');
    await purgeExpired({ acting, sdk, storageDir, logger }, settings.retentionDays);
    await this.removeUnfinishedUploads();
    return taken;
  }

  /**
   * Removes the partial files of source and binary uploads whose backend died (see documents'
   * `sdk.files`); a failure is logged, never thrown: it must not stop the sweep.
   */
  async removeUnfinishedUploads(): Promise<void> {
    const { storageDir, logger, sdk } = this.#deps;
    for (const [what, remove] of [
      ['source', () => removeAbandonedSources(sdk.files, storageDir)],
      ['binary', () => peers(sdk).documents.removeUnfinishedUploads()],
    ] as const) {
      const removed = await remove().catch((error: unknown) => {
        logger.warn({ err: error }, `migration_import: could not look for unfinished ${what} uploads`);
        return [];
      });
      if (removed.length > 0)
        logger.info(
          { files: removed },
          `migration_import: removed ${removed.length} ${what} upload(s) a stopped backend left unfinished`,
        );
    }
  }

  async #resumeOrphans(): Promise<number[]> {
    const taken: number[] = [];
    for (const job of await orphanedRuns(this.#deps.knex)) {
      const claimed =
        job.state === 'validating' ? await this.validate(job.id) : (await this.execute(job.id))?.row;
      if (claimed !== undefined) {
        taken.push(job.id);
        this.#deps.logger.info(
          { job: job.id, state: job.state },
          'migration_import: resuming an interrupted job',
        );
      }
    }
    return taken;
  }

  #claim() {
    return { workerId: this.workerId, leaseMs: this.#deps.settings.leaseMs };
  }

  #start(run: Run, row: JobRow): void {
    const { knex, storageDir, settings, sdk } = this.#deps;
    const lease = new Lease(knex, row.id, this.workerId, settings.leaseMs);
    const work =
      run === 'validate'
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
            { knex, sdk, storageDir, batchSize: settings.batchSize, maxWarnings: settings.maxWarnings },
            row,
            lease,
          );
    const done = lease
      .keepWhile(() => work)
      .catch((error: unknown) => this.#failed(run, lease, error))
      .finally(() => this.#active.delete(row.id));
    this.#active.set(row.id, done);
  }

  async #failed(run: Run, lease: Lease, error: unknown): Promise<void> {
    const { knex, logger, sdk } = this.#deps;
    if (error instanceof LostLease) {
      logger.warn({ job: lease.jobId }, `migration_import: ${error.message}; this worker stopped`);
      return;
    }
    if (poolDestroyed(knex)) return; // The backend is stopping: the lease lapses and the job resumes later.
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
}

/** After `knex.destroy()` the client has no pool: nothing more can be done in this process. */
const poolDestroyed = (knex: Knex): boolean => (knex.client as { pool?: unknown }).pool == null;
