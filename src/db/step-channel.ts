/**
 * The `ward_steps` channel: a backend applying a plan announces each operation-log row it writes
 * with PostgreSQL NOTIFY, and `ward modules restart --wait` LISTENs to print progress as it comes.
 * A row is announced once it is durable, outside the step's transaction: a notice never tells of
 * work that was rolled back, and a NOTIFY that fails cannot fail the step (the applier logs it and
 * goes on). Notices are for watching; the log is the record.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import { listen } from './listener.ts';
import { connectClient } from './pg-client.ts';

const CHANNEL = 'ward_steps';
/**
 * A NOTIFY payload must stay under 8000 bytes: a longer message (an error, say) is cut to this many
 * UTF-16 units, which JSON encodes in at most 6 bytes each. The log keeps it whole.
 */
const MESSAGE_LIMIT = 1000;

export interface StepNotice {
  module: string;
  operation: string;
  step: string;
  status: string;
  message: string | null;
}

export async function announceStep(knex: Knex, notice: StepNotice): Promise<void> {
  const message =
    notice.message !== null && notice.message.length > MESSAGE_LIMIT
      ? `${notice.message.slice(0, MESSAGE_LIMIT)}…`
      : notice.message;
  await knex.raw('select pg_notify(?, ?)', [CHANNEL, JSON.stringify({ ...notice, message })]);
}

export interface StepFeed {
  /** Resolves once every notice sent before the call has been handed to `onNotice`. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** Calls `onNotice` for each step announced from now on. Rejects if the first connection fails. */
export async function listenForSteps(url: string, onNotice: (notice: StepNotice) => void): Promise<StepFeed> {
  let client: pg.Client | null = null;
  const listener = listen({
    channel: CHANNEL,
    open: async () => (client = await connectClient(url)),
    release: (closing) => closing.end(),
    onNotification: (payload) => {
      const notice = parseNotice(payload);
      if (notice !== null) onNotice(notice);
    },
  });
  try {
    await listener.ready;
  } catch (error) {
    await listener.close();
    throw error;
  }
  return {
    // PostgreSQL sends a listening session the notices committed before a query ahead of its answer.
    caughtUp: async () => {
      await client?.query('select 1').catch(() => undefined);
    },
    close: () => listener.close(),
  };
}

function parseNotice(payload: string): StepNotice | null {
  try {
    const value = JSON.parse(payload) as Partial<StepNotice>;
    const text = (field: unknown) => typeof field === 'string';
    if (!text(value.module) || !text(value.operation) || !text(value.step) || !text(value.status))
      return null;
    return {
      module: value.module as string,
      operation: value.operation as string,
      step: value.step as string,
      status: value.status as string,
      message: typeof value.message === 'string' ? value.message : null,
    };
  } catch {
    return null;
  }
}
