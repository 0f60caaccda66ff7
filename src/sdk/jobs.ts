/**
 * `sdk.jobs` for one module: its job names become queues `<module>.<name>` on the backend's job
 * queue (src/jobs/queue.ts), its handlers get the acting context of the job (`job:<id>`), and
 * Ward's defaults fill in what `define` leaves out. Where no queue runs (hooks, commands), every
 * call rejects with WardError `jobs_unavailable`.
 */
import type { Knex } from 'knex';
import { acting, jobActor } from '../db/acting.ts';
import { WardError } from '../errors/ward-error.ts';
import { DEFAULT_DEFINITION, type JobQueue, type JobStatus } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { EnqueueOptions, JobHandler, JobInfo, JobOptions, SdkJobs } from './index.ts';

const NAME = /^[a-z][a-z0-9_-]{0,62}$/;

function queueName(module: string, name: string): string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new WardError(
      'invalid_job_name',
      `${JSON.stringify(name)} is not a job name`,
      'name jobs with lowercase letters, digits, _ or -, starting with a letter: `run`, `send-reminder`',
    );
  return `${module}.${name}`;
}

const info = (name: string, status: JobStatus): JobInfo => ({
  id: status.id,
  name,
  state: status.state,
  attempts: status.attempts,
  progress: status.progress,
  createdAt: status.createdAt,
  startedAt: status.startedAt,
  finishedAt: status.finishedAt,
});

export function moduleJobs(queue: JobQueue, module: string, knex: Knex, logger: Logger): SdkJobs {
  return Object.freeze({
    async define<T>(name: string, handler: JobHandler<T>, options: JobOptions = {}) {
      const definition = { ...DEFAULT_DEFINITION, ...options };
      await queue.define(queueName(module, name), definition, async (job) => {
        const log = logger.child({ job: job.id, name, attempt: job.attempt });
        try {
          await handler({
            ...acting(knex, jobActor(job.id)),
            id: job.id,
            name,
            data: job.data as T,
            attempt: job.attempt,
            signal: job.signal,
            logger: log,
            progress: job.progress,
          });
        } catch (error) {
          log.warn(
            { err: error },
            'background job attempt failed; the queue retries it unless its retries are spent',
          );
          throw error;
        }
      });
    },
    enqueue: async (name: string, data: object, options: EnqueueOptions = {}) =>
      queue.enqueue(queueName(module, name), data, {
        key: options.key,
        startAfterSeconds: options.startAfterSeconds,
        db: options.trx,
      }),
    cancel: async (name: string, id: string) => queue.cancel(queueName(module, name), id),
    get: async (name: string, id: string) => {
      const status = await queue.status(queueName(module, name), id);
      return status === null ? null : info(name, status);
    },
  });
}

const unavailable = async (): Promise<never> => {
  throw new WardError(
    'jobs_unavailable',
    'background jobs run only in the backend, not in hooks or commands',
    "enqueue from a route or a service; a hook's or command's work runs where it is called",
  );
};

/** For hooks and commands, which run where no job queue does. */
export const noJobs: SdkJobs = Object.freeze({
  define: unavailable,
  enqueue: unavailable,
  cancel: unavailable,
  get: unavailable,
});
