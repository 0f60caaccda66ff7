/**
 * Validation reports its progress while it runs: rows read of the rows estimated from the bytes
 * read, through the same `progress` as execute, and 100% once validated. The test holds the run at
 * its first progress write (the run's progress channel), so nothing depends on timing.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { estimatedRows } from '../../../modules/migration_import/lib/jobs/validate-run.ts';
import { createJob, fixtureBytes, settled, world, type JobBody } from './world.ts';

const PROGRESS = 'ward.migration_import.validate_progress';

/** The fixture's patients.csv grown to `count` patients (fresh ids), large enough to be read in many chunks. */
async function manyPatients(count: number): Promise<string> {
  const [header, row] = (await fixtureBytes('synthea/patients.csv')).toString('utf8').split('\n');
  const rest = row!.slice(row!.indexOf(','));
  return [header, ...Array.from({ length: count }, () => `${randomUUID()}${rest}`)].join('\n') + '\n';
}

test('a job being validated reports progress between 0 and 100, and 100 once validated', async (t) => {
  const w = await world(t);
  const source = await manyPatients(6000);
  const job = await createJob(w, source, { format: 'synthea-patients-csv' });

  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: (message: { done: number; total: number }) => void;
  const first = new Promise<{ done: number; total: number }>((resolve) => (reached = resolve));
  const onProgress = (message: unknown) => {
    const progress = message as { job: number; done: number; total: number; hold: Array<Promise<unknown>> };
    if (progress.job !== job.id) return;
    unsubscribe(PROGRESS, onProgress);
    progress.hold.push(gate);
    reached(progress);
  };
  subscribe(PROGRESS, onProgress);
  t.teardown(() => {
    unsubscribe(PROGRESS, onProgress);
    release();
  });

  t.is((await w.api('POST', `/jobs/${job.id}/validate`)).status, 202);
  const published = await first;
  const during = (await w.api('GET', `/jobs/${job.id}`)).body as JobBody;
  t.is(during.state, 'validating');
  t.deepEqual(during.progress.done, published.done);
  t.deepEqual(during.progress.total, published.total);
  t.true(during.progress.done > 0);
  t.true(during.progress.done < during.progress.total);
  t.true(during.progress.percent >= 0 && during.progress.percent < 100);
  release();

  const done = await settled(w, job.id);
  t.is(done.state, 'validated');
  t.deepEqual(done.progress, { done: 6000, total: 6000, percent: 100 });
});

test('the estimated row count grows with the share of the source read and stays above the rows read', (t) => {
  t.is(estimatedRows(500, 100_000, 1_000_000), 5000);
  t.is(estimatedRows(500, 1_000_000, 1_000_000), 501);
  t.is(estimatedRows(0, 0, 1_000_000), 1);
});

test('a job whose validation finds no record to write shows 100% once validated', async (t) => {
  const w = await world(t);
  const job = await createJob(w, 'Id,BIRTHDATE\n', { format: 'synthea-patients-csv' });
  t.is((await w.api('POST', `/jobs/${job.id}/validate`)).status, 202);
  const done = await settled(w, job.id);
  t.is(done.state, 'invalid');
  t.deepEqual(done.progress, { done: 0, total: 0, percent: 100 });
});
