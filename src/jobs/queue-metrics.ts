/**
 * The job queue as an operator watches it: per queue (`<module>.<name>`, few by construction), the
 * jobs waiting to run and running, how long the oldest due one has waited (a queue whose workers
 * fall behind shows here first), and attempts by outcome and jobs that ended failed. Depth and age
 * are read from pg-boss's job table at each scrape, one grouped query, so enqueueing and running
 * pay nothing for them; the counters are bumped where an attempt ends.
 */
import type { Knex } from 'knex';
import { metrics, type Reading } from '../metrics/registry.ts';

interface QueueRow {
  name: string;
  queued: string;
  running: string;
  oldest_due_seconds: number | null;
}

let watched: { knex: Knex; schema: string } | null = null;
/** One query serves the three gauges of a scrape: prom-client collects them all at once. */
let reading: Promise<QueueRow[]> | null = null;

function rows(): Promise<QueueRow[]> {
  if (watched === null) return Promise.resolve([]);
  const { knex, schema } = watched;
  reading ??= knex
    // Waiting: created or retrying (pg-boss's states before active); due: its start time passed.
    .raw<{ rows: QueueRow[] }>(
      `SELECT name,
              count(*) FILTER (WHERE state < 'active') AS queued,
              count(*) FILTER (WHERE state = 'active') AS running,
              extract(epoch FROM now() - min(start_after) FILTER (WHERE state < 'active' AND start_after <= now()))::float8
                AS oldest_due_seconds
         FROM ${schema}.job
        WHERE state <= 'active'
        GROUP BY name`,
    )
    .then((result) => result.rows)
    .finally(() => {
      // Cleared on the next turn, after every gauge of this scrape has read the same rows.
      setImmediate(() => (reading = null));
    });
  return reading;
}

const perQueue =
  (value: (row: QueueRow) => number | null) => async (): Promise<ReadonlyArray<Reading<'queue'>>> =>
    (await rows()).flatMap((row) => {
      const figure = value(row);
      return figure === null ? [] : [{ labels: { queue: row.name }, value: figure }];
    });

metrics.gauge<'queue'>({
  name: 'ward_jobs_queued',
  help: 'Jobs waiting to run (queued or waiting to retry, due or not), per queue.',
  labelNames: ['queue'],
  collect: perQueue((row) => Number(row.queued)),
});

metrics.gauge<'queue'>({
  name: 'ward_jobs_running',
  help: 'Jobs running now on any backend, per queue.',
  labelNames: ['queue'],
  collect: perQueue((row) => Number(row.running)),
});

metrics.gauge<'queue'>({
  name: 'ward_jobs_oldest_due_age_seconds',
  help: 'Seconds the oldest job that is due to run has waited since it became due, per queue with one.',
  labelNames: ['queue'],
  collect: perQueue((row) => row.oldest_due_seconds),
});

const attempts = metrics.counter<'queue' | 'outcome'>({
  name: 'ward_job_attempts_total',
  help: 'Attempts this backend ran to their end, per queue and outcome (completed or failed).',
  labelNames: ['queue', 'outcome'],
});

const failedJobs = metrics.counter<'queue'>({
  name: 'ward_jobs_failed_total',
  help: 'Jobs whose last attempt (retries spent) failed on this backend, per queue.',
  labelNames: ['queue'],
});

/** Reports the queues of the job schema on `knex` from now on (a backend has one). */
export function watchJobs(knex: Knex, schema: string): void {
  watched = { knex, schema };
}

/** Stops reporting `knex`'s queues (the backend stops). */
export function unwatchJobs(knex: Knex): void {
  if (watched?.knex === knex) watched = null;
}

export function attemptEnded(queue: string, failed: boolean, retriesSpent: boolean): void {
  attempts.inc({ queue, outcome: failed ? 'failed' : 'completed' });
  if (failed && retriesSpent) failedJobs.inc({ queue });
}
