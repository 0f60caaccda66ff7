/**
 * migration_import's background work, started with each backend and stopped before it exits: the
 * handler of the queue job that runs a validation or an execute (lib/jobs/runner.ts), and the
 * sweeper that queues runs the queue does not know of and applies the retention (lib/jobs/sweeper.ts).
 */
import type { JobContext, ModuleServices, ServiceContext } from '../../src/sdk/index.ts';
import { handleRun, RUN, type RunData } from './lib/jobs/runner.ts';
import { importSettings } from './lib/jobs/settings.ts';
import { startSweeper } from './lib/jobs/sweeper.ts';

/** Runs the queue gives one backend at once. */
const CONCURRENCY = 2;
/** Retries of a run whose backend died or stopped; a run that fails for its data ends `failed` without any. */
const RETRIES = 20;

const deps = (ctx: ServiceContext) => ({ ...ctx, settings: importSettings(ctx.sdk) });

const services: ModuleServices = [
  {
    name: 'runs',
    async start(ctx) {
      const runner = deps(ctx);
      await ctx.sdk.jobs.define<RunData>(RUN, (job: JobContext<RunData>) => handleRun(runner, job), {
        leaseSeconds: runner.settings.leaseMs / 1000,
        retryLimit: RETRIES,
        concurrency: CONCURRENCY,
        uniquePerKey: true,
      });
      // The queue stops with the backend; a run it cuts short resumes from its last batch.
      return { stop: () => undefined };
    },
  },
  {
    name: 'sweeper',
    start: (ctx) => startSweeper(deps(ctx)),
  },
];

export default services;
