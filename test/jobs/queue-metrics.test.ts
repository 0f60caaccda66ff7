/**
 * The job queue's figures in the metrics registry, scraped while real jobs wait, run and fail on
 * pg-boss and a real PostgreSQL: depth, running, the oldest due job's age, attempts by outcome and
 * failed jobs move as the jobs do. Metrics are enabled once for this file's process.
 */
import test from 'ava';
import { JobQueue } from '../../src/jobs/queue.ts';
import { silentLogger } from '../../src/logger.ts';
import { enableMetrics } from '../../src/metrics/registry.ts';
import { moduleJobs } from '../../src/sdk/jobs.ts';
import { testDatabase } from '../helpers/database.ts';

/** `name{labels}` → value, from Prometheus's text format. */
async function scrape(): Promise<Map<string, number>> {
  const text = await (await enableMetrics()).text();
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

/** Scrapes until `holds` is true of the figures (jobs move on their own time), and returns them. */
async function scrapeUntil(holds: (figures: Map<string, number>) => boolean): Promise<Map<string, number>> {
  for (;;) {
    const figures = await scrape();
    if (holds(figures)) return figures;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('queue depth, running jobs, the oldest due job age, attempts and failed jobs move as jobs do', async (t) => {
  await enableMetrics();
  const { knex } = await testDatabase(t);
  const queue = new JobQueue(knex, silentLogger);
  t.teardown(() => queue.stop(1000));
  const sdk = moduleJobs(queue, 'demo', knex, silentLogger);

  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await sdk.define('held', () => released, { concurrency: 1 });
  await sdk.define(
    'broken',
    async () => {
      throw new Error('always');
    },
    { retryLimit: 1, retryDelaySeconds: 1 },
  );
  for (let i = 0; i < 3; i++) await sdk.enqueue('held', { i });
  await sdk.enqueue('held', { later: true }, { startAfterSeconds: 3600 });

  const held = await scrapeUntil(
    (figures) =>
      figures.get('ward_jobs_running{queue="demo.held"}') === 1 &&
      (figures.get('ward_jobs_oldest_due_age_seconds{queue="demo.held"}') ?? 0) > 0,
  );
  // Two due jobs wait behind the running one, and the deferred one counts as waiting too.
  t.is(held.get('ward_jobs_queued{queue="demo.held"}'), 3);

  release();
  const drained = await scrapeUntil(
    (figures) =>
      figures.get('ward_job_attempts_total{queue="demo.held",outcome="completed"}') === 3 &&
      figures.get('ward_jobs_running{queue="demo.held"}') === 0,
  );
  // Only the deferred job is left, and it is not due: no age.
  t.is(drained.get('ward_jobs_queued{queue="demo.held"}'), 1);
  t.false(drained.has('ward_jobs_oldest_due_age_seconds{queue="demo.held"}'));

  await sdk.enqueue('broken', {});
  const failed = await scrapeUntil(
    (figures) => figures.get('ward_jobs_failed_total{queue="demo.broken"}') === 1,
  );
  // The first attempt failed and was retried; the second spent the retries.
  t.is(failed.get('ward_job_attempts_total{queue="demo.broken",outcome="failed"}'), 2);
  t.false(failed.has('ward_job_attempts_total{queue="demo.broken",outcome="completed"}'));
});
