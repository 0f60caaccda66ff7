/**
 * The `ward modules restart` channel: PostgreSQL NOTIFY on one channel, which every running backend
 * LISTENs to on a dedicated connection. The same connection announces the backend: its
 * application_name is `ward-backend:<pid>`, so `pg_stat_activity` tells the CLI which backends
 * are up, with no registry to keep in sync. A backend opens it only after it serves traffic.
 */
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { listen } from './listener.ts';
import { connectClient } from './pg-client.ts';

const CHANNEL = 'ward_restart';
const APPLICATION_PREFIX = 'ward-backend:';

export interface RunningBackend {
  pid: number;
  since: Date;
}

export interface RestartListener {
  close(): Promise<void>;
}

/**
 * Calls `onRestart` when a restart is requested. Rejects if the first connection fails; after that,
 * a lost connection is opened again for as long as the listener is open.
 */
export async function listenForRestart(
  url: string,
  logger: Logger,
  onRestart: () => void,
): Promise<RestartListener> {
  let wasUp = false;
  const listener = listen({
    channel: CHANNEL,
    open: () => connectClient(url, `${APPLICATION_PREFIX}${process.pid}`),
    release: (client) => client.end(),
    onNotification: onRestart,
    onUp: () => (wasUp = true),
    onDown: (error, retryInMs) => {
      if (wasUp)
        logger.warn({ err: error, retryInMs }, 'restart listener lost its database connection; trying again');
    },
  });
  try {
    await listener.ready;
  } catch (error) {
    await listener.close();
    throw error;
  }
  return listener;
}

export async function runningBackends(knex: Knex): Promise<RunningBackend[]> {
  const rows = (await knex('pg_stat_activity')
    .whereRaw('datname = current_database()')
    .andWhere('application_name', 'like', `${APPLICATION_PREFIX}%`)
    .select('application_name', 'backend_start')) as Array<{ application_name: string; backend_start: Date }>;
  return rows
    .map((row) => ({
      pid: Number(row.application_name.slice(APPLICATION_PREFIX.length)),
      since: row.backend_start,
    }))
    .sort((a, b) => a.pid - b.pid);
}

/** Asks every listening backend to restart; NOTIFY is delivered when this transaction commits. */
export async function requestRestart(knex: Knex): Promise<void> {
  await knex.raw('select pg_notify(?, ?)', [
    CHANNEL,
    JSON.stringify({ requestedAt: new Date().toISOString() }),
  ]);
}
