/**
 * The module's periodic sweep, every half lease on every backend: it queues a run for each job
 * left running with no live worker that the job queue does not hold already (a row left by a
 * version of the module before the queue, or a claim whose run was never queued), and purges the
 * raw data of jobs past WARD_IMPORT_RETENTION_DAYS, and removes the partial files of uploads
 * (sources, binaries) a dead backend left behind. A run the queue does hold (its backend died and
 * its lease has not lapsed yet) is left to the queue, which retries it on a live backend.
 */
import type { Knex } from 'knex';
import type { Logger, WardSdk } from '../../../../src/sdk/index.ts';
import { orphanedRuns } from './job-store.ts';
import { peers } from './peers.ts';
import { purgeExpired } from './purge.ts';
import { enqueueRun } from './runner.ts';
import { removeAbandonedSources } from './source-file.ts';
import type { ImportSettings } from './settings.ts';

export interface SweepDeps {
  knex: Knex;
  storageDir: string;
  logger: Logger;
  settings: ImportSettings;
  sdk: WardSdk;
}

/** One sweep; resolves to the ids of the jobs whose run it queued. */
export async function sweep(deps: SweepDeps): Promise<number[]> {
  const queued: number[] = [];
  for (const job of await orphanedRuns(deps.knex)) {
    if (await enqueueRun(deps.sdk, job.id)) {
      queued.push(job.id);
      deps.logger.info(
        { job: job.id, state: job.state },
        'migration_import: queued an interrupted job again',
      );
    }
  }
  const { storageDir, logger, settings, sdk } = deps;
  const acting = sdk.jobActing('migration_import:retention');
  await purgeExpired({ acting, sdk, storageDir, logger }, settings.retentionDays);
  await removeUnfinishedUploads(deps);
  return queued;
}

/**
 * Removes the partial files of source and binary uploads whose backend died (see `sdk.files`); a
 * failure is logged, never thrown: it must not stop the sweep.
 */
export async function removeUnfinishedUploads({ storageDir, logger, sdk }: SweepDeps): Promise<void> {
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

/** Sweeps at once and then every half lease until `stop`, which resolves once no sweep runs. */
export function startSweeper(deps: SweepDeps): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = sweep(deps).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'migration_import: looking for interrupted jobs failed'),
    );
  };
  tick();
  const timer = setInterval(() => void running.then(tick), deps.settings.leaseMs / 2);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
