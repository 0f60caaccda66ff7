/**
 * The module's periodic sweep, every half lease on every backend: it queues a run for each job
 * left running with no live worker that the job queue does not hold already (a row left by a
 * version of the module before the queue, or a claim whose run was never queued), and purges the
 * raw data of jobs past WARD_IMPORT_RETENTION_DAYS. A run the queue does hold (its backend died and
 * its lease has not lapsed yet) is left to the queue, which retries it on a live backend.
 */
import type { Knex } from 'knex';
import type { Logger, WardSdk } from '../../../../src/sdk/index.ts';
import { orphanedRuns } from './job-store.ts';
import { purgeExpired } from './purge.ts';
import { enqueueRun } from './runner.ts';
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
  const { knex, storageDir, logger, settings } = deps;
  await purgeExpired({ knex, storageDir, logger }, settings.retentionDays);
  return queued;
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
