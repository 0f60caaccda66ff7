/**
 * migration_import at /api/v1/migration_import/: the eight routes of its contract and the purge
 * of a job's raw data, each behind its permission. Validate and execute answer 202 and run in the
 * background, as jobs on Ward's job queue (lib/jobs/runner.ts, defined in services.ts); GET
 * /jobs/{id} shows their progress.
 */
import type { ModuleRoutes } from '../../src/sdk/index.ts';
import { createJob } from './lib/http/create-job.ts';
import { cannotExecute, cannotPurge, cannotValidate, purged } from './lib/http/errors.ts';
import { foundJob, jobId, sampleSize, severityFilter, stateFilter } from './lib/http/params.ts';
import { uploadBinary } from './lib/http/upload-binary.ts';
import { jobView } from './lib/jobs/job-row.ts';
import { listJobs } from './lib/jobs/job-store.ts';
import { peers } from './lib/jobs/peers.ts';
import { previewJob } from './lib/jobs/preview-run.ts';
import { purgeJob } from './lib/jobs/purge.ts';
import { startExecute, startValidate } from './lib/jobs/runner.ts';
import { importSettings } from './lib/jobs/settings.ts';
import { READ_PERMISSION, visibleStep, visibleWarning } from './lib/jobs/visibility.ts';
import { listWarnings, WARNING_SORT_KEY } from './lib/jobs/warning-store.ts';

const READ = 'migration_import.job.read';
const WRITE = 'migration_import.job.write';
const EXECUTE = 'migration_import.job.execute';
const BINARY = 'migration_import.binary.write';
const PURGE = 'migration_import.job.purge';

const routes: ModuleRoutes = ({ knex, storageDir, logger, module, sdk }) => {
  const settings = importSettings(sdk);
  const maxBinaryBytes = peers(sdk).documents.maxBytes();
  const mount = `/api/v1/${module}`;
  const runner = { knex, storageDir, logger, settings, sdk };
  const { pageRequest } = sdk.http;
  return [
    {
      method: 'GET',
      path: '/jobs',
      permission: READ,
      summary: 'List import jobs, newest first: ?limit, ?cursor or ?offset, ?state',
      handler: async (ctx) => {
        ctx.body = await listJobs(sdk, knex, pageRequest(ctx, ['integer']), stateFilter(sdk, ctx));
      },
    },
    {
      method: 'GET',
      path: '/jobs/:id',
      permission: READ,
      summary: 'One job: state, counts, progress, results',
      handler: async (ctx) => {
        ctx.body = jobView(await foundJob(sdk, knex, jobId(sdk, ctx)));
      },
    },
    {
      method: 'GET',
      path: '/jobs/:id/warnings',
      permission: READ,
      summary: "A job's warnings in source order: ?severity=error|warning|info, ?limit, ?cursor or ?offset",
      handler: async (ctx) => {
        const job = await foundJob(sdk, knex, jobId(sdk, ctx));
        const severity = severityFilter(sdk, ctx);
        const page = await listWarnings(sdk, knex, job.id, pageRequest(ctx, WARNING_SORT_KEY), severity);
        const { can } = sdk.http.caller(ctx);
        ctx.body = { ...page, items: page.items.map((warning) => visibleWarning(warning, can)) };
      },
    },
    {
      method: 'POST',
      path: '/jobs/:id/preview',
      permission: READ,
      summary:
        "What execute would do now (counts to create, update, skip; first rows before and after, Ward's side only with the kind's read permission); changes nothing",
      handler: async (ctx) => {
        const job = await foundJob(sdk, knex, jobId(sdk, ctx));
        if (job.purged_at !== null) throw purged(sdk, job);
        const preview = await previewJob(
          { knex, sdk, storageDir, batchSize: settings.batchSize },
          job,
          sampleSize(sdk, ctx),
        );
        const { can } = sdk.http.caller(ctx);
        const samples = Object.fromEntries(
          Object.entries(preview.samples).map(([action, steps]) => [
            action,
            steps.map((step) => visibleStep(step, can)),
          ]),
        );
        const failures = {
          ...preview.failures,
          samples: preview.failures.samples.map((warning) => visibleWarning(warning, can)),
        };
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'import.preview',
          kind: 'import_job',
          recordId: job.id,
        });
        // Which practitioners Ward has is appointments' to show: the notice needs their read permission.
        const practitioners = can(READ_PERMISSION.appointment) ? preview.practitioners : null;
        ctx.body = { job: job.id, ...preview, samples, failures, practitioners };
      },
    },
    {
      method: 'POST',
      path: '/jobs',
      permission: WRITE,
      rawBody: true,
      summary: 'Create a job: the raw body is the source file; ?format= and ?source_system=',
      handler: (ctx) =>
        createJob(ctx, { sdk, knex, storageDir, maxSourceBytes: settings.maxSourceBytes, mount }),
    },
    {
      method: 'POST',
      path: '/jobs/:id/validate',
      permission: WRITE,
      summary: 'Validate the source in the background (202); errors make the job invalid',
      handler: async (ctx) => {
        const id = jobId(sdk, ctx);
        const claimed = await startValidate(runner, sdk.acting(ctx), id);
        if (claimed === undefined) throw cannotValidate(sdk, await foundJob(sdk, knex, id));
        ctx.status = 202;
        ctx.set('Location', `${mount}/jobs/${id}`);
        ctx.body = jobView(claimed);
      },
    },
    {
      method: 'POST',
      path: '/jobs/:id/execute',
      permission: EXECUTE,
      summary: 'Execute in the background (202): a re-run updates, a job whose worker died resumes',
      handler: async (ctx) => {
        const id = jobId(sdk, ctx);
        const claimed = await startExecute(runner, sdk.acting(ctx), id);
        if (claimed === undefined) throw cannotExecute(sdk, await foundJob(sdk, knex, id));
        ctx.status = 202;
        ctx.set('Location', `${mount}/jobs/${id}`);
        ctx.body = { ...jobView(claimed.row), resumed: claimed.resumed };
      },
    },
    {
      method: 'POST',
      path: '/jobs/:id/binaries',
      permission: BINARY,
      rawBody: true,
      summary: 'Upload one binary: raw body, ?ref=, X-Content-SHA256; same file again is a duplicate',
      handler: (ctx) => uploadBinary(ctx, { sdk, knex, maxBytes: maxBinaryBytes }),
    },
    {
      method: 'POST',
      path: '/jobs/:id/purge',
      permission: PURGE,
      summary:
        "Delete a job's source, binaries and warnings (not the records it imported); the job stays, marked purged_at/purged_by",
      handler: async (ctx) => {
        const id = jobId(sdk, ctx);
        const done = await purgeJob(
          { acting: sdk.acting(ctx), sdk, storageDir, logger },
          id,
          sdk.http.caller(ctx).username,
        );
        if (done === undefined) throw cannotPurge(sdk, await foundJob(sdk, knex, id));
        ctx.body = { ...jobView(done.row), purged: done.purged };
      },
    },
  ];
};

export default routes;
