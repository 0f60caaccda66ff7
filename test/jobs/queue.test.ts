/**
 * sdk.jobs on the real job queue (pg-boss) and a real PostgreSQL: a job runs once as `job:<id>`
 * with its progress readable; a failed attempt is retried; a cancelled job's signal aborts; a key
 * keeps a second job out; a job enqueued in a transaction exists only if it commits; and a job
 * whose backend was killed is taken over by another backend and finished there, once.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { ROOT } from '../../src/config.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { silentLogger } from '../../src/logger.ts';
import type { JobContext, JobInfo, SdkJobs } from '../../src/sdk/index.ts';
import { moduleJobs, noJobs } from '../../src/sdk/jobs.ts';
import { testDatabase } from '../helpers/database.ts';

async function jobs(t: ExecutionContext): Promise<{ jobs: SdkJobs; knex: Knex; url: string }> {
  const { knex, url } = await testDatabase(t);
  const queue = new JobQueue(knex, silentLogger);
  t.teardown(() => queue.stop(1000));
  return { jobs: moduleJobs(queue, 'demo', knex, silentLogger), knex, url };
}

/** Polls until the job is in one of `states`. */
async function reaches(sdk: SdkJobs, name: string, id: string, states: JobInfo['state'][]): Promise<JobInfo> {
  for (;;) {
    const job = await sdk.get(name, id);
    if (job !== null && states.includes(job.state)) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a job runs once, acting as job:<id>, and the progress it reports is readable', async (t) => {
  const { jobs: sdk } = await jobs(t);
  const seen: Array<{ actor: string; attempt: number; data: unknown }> = [];
  await sdk.define<{ n: number }>('count', async (ctx: JobContext<{ n: number }>) => {
    seen.push({ actor: ctx.actor, attempt: ctx.attempt, data: ctx.data });
    await ctx.progress(3, 4);
  });
  const id = (await sdk.enqueue('count', { n: 7 }))!;
  const done = await reaches(sdk, 'count', id, ['completed', 'failed']);
  t.like(done, { id, name: 'count', state: 'completed', attempts: 1, progress: { done: 3, total: 4 } });
  t.deepEqual(seen, [{ actor: `job:${id}`, attempt: 1, data: { n: 7 } }]);
});

test('an attempt that throws is retried, and the job completes on the next attempt', async (t) => {
  const { jobs: sdk } = await jobs(t);
  const attempts: number[] = [];
  await sdk.define(
    'flaky',
    async (ctx) => {
      attempts.push(ctx.attempt);
      if (ctx.attempt === 1) throw new Error('the first attempt fails');
    },
    { retryLimit: 2, retryDelaySeconds: 1 },
  );
  const id = (await sdk.enqueue('flaky', {}))!;
  t.like(await reaches(sdk, 'flaky', id, ['completed', 'failed']), { state: 'completed', attempts: 2 });
  t.deepEqual(attempts, [1, 2]);
});

test('a job that keeps failing ends failed once its retries are spent', async (t) => {
  const { jobs: sdk } = await jobs(t);
  let attempts = 0;
  await sdk.define(
    'broken',
    async () => {
      attempts++;
      throw new Error('always');
    },
    { retryLimit: 1, retryDelaySeconds: 1 },
  );
  const id = (await sdk.enqueue('broken', {}))!;
  t.like(await reaches(sdk, 'broken', id, ['completed', 'failed']), { state: 'failed', attempts: 2 });
  t.is(attempts, 2);
});

test('cancelling a running job aborts its signal and leaves it cancelled', async (t) => {
  const { jobs: sdk } = await jobs(t);
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let aborted = false;
  await sdk.define(
    'long',
    async (ctx) => {
      started();
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      aborted = true;
    },
    { leaseSeconds: 10 },
  );
  const id = (await sdk.enqueue('long', {}))!;
  await running;
  t.true(await sdk.cancel('long', id));
  t.is((await reaches(sdk, 'long', id, ['cancelled'])).state, 'cancelled');
  while (!aborted) await new Promise((resolve) => setTimeout(resolve, 100));
  t.false(await sdk.cancel('long', id), 'an ended job cannot be cancelled again');
});

test('a key keeps a second job out while the first is queued', async (t) => {
  const { jobs: sdk } = await jobs(t);
  await sdk.define('once', async () => undefined, { uniquePerKey: true });
  const first = await sdk.enqueue('once', {}, { key: 'k', startAfterSeconds: 3600 });
  t.is(typeof first, 'string');
  t.is(await sdk.enqueue('once', {}, { key: 'k' }), null);
  t.is(typeof (await sdk.enqueue('once', {}, { key: 'other', startAfterSeconds: 3600 })), 'string');
});

test('a job enqueued in a transaction that rolls back does not exist', async (t) => {
  const { jobs: sdk, knex } = await jobs(t);
  await sdk.define('tx', async () => undefined);
  let id: string | null = null;
  await t.throwsAsync(
    knex.transaction(async (trx) => {
      id = await sdk.enqueue('tx', {}, { trx, startAfterSeconds: 3600 });
      throw new Error('roll back');
    }),
    { message: 'roll back' },
  );
  t.is(typeof id, 'string');
  t.is(await sdk.get('tx', id!), null);
});

test('a job name that is not lowercase letters, digits, _ or - is refused; so is an undefined job; no job has an id that is not one', async (t) => {
  const { jobs: sdk } = await jobs(t);
  await t.throwsAsync(
    sdk.define('Send Mail', async () => undefined),
    { message: '"Send Mail" is not a job name' },
  );
  await t.throwsAsync(sdk.enqueue('nobody-defined-me', {}), {
    message: 'there is no job queue demo.nobody-defined-me',
  });
  t.is(await sdk.get('nobody-defined-me', 'not-an-id'), null);
  t.false(await sdk.cancel('nobody-defined-me', 'not-an-id'));
});

test('hooks and commands, where no queue runs, are told so', async (t) => {
  await t.throwsAsync(noJobs.enqueue('x', {}), {
    message: 'background jobs run only in the backend, not in hooks or commands',
  });
});

test('a job whose backend is killed is taken over by another backend and finished there once', async (t) => {
  const { jobs: sdk, url } = await jobs(t);
  const finished: number[] = [];
  const id = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'test/fixtures/jobs/hanging-worker.ts'), url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const ready = !out.includes('ready');
      out += chunk.toString();
      if (ready && out.includes('ready')) sdk.enqueue('slow', {}).catch(reject);
      const took = /took (\S+)/.exec(out);
      if (took === null) return;
      child.kill('SIGKILL');
      child.once('exit', () => resolve(took[1]!));
    });
  });
  t.is((await sdk.get('slow', id))?.state, 'running', 'the dead backend still holds it');
  await sdk.define(
    'slow',
    async (ctx) => {
      finished.push(ctx.attempt);
    },
    { leaseSeconds: 10 },
  );
  t.like(await reaches(sdk, 'slow', id, ['completed', 'failed']), { state: 'completed', attempts: 2 });
  t.deepEqual(finished, [2]);
});
