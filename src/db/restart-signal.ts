/**
 * The `ward modules restart` channel: PostgreSQL NOTIFY on one channel, which every running backend
 * LISTENs to on a dedicated connection. The same connection announces the backend: its
 * application_name is `ward-backend:<pid>`, so `pg_stat_activity` tells the CLI which backends
 * are up, with no registry to keep in sync. A backend opens it only after it serves traffic.
 */
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import { connectionSettings } from './connection.ts';

const CHANNEL = 'ward_restart';
const APPLICATION_PREFIX = 'ward-backend:';
const RECONNECT_MS = 2_000;

export interface RunningBackend {
  pid: number;
  since: Date;
}

export interface RestartListener {
  close(): Promise<void>;
}

/** Calls `onRestart` when a restart is requested; reconnects if the database connection drops. */
export async function listenForRestart(
  url: string,
  logger: Logger,
  onRestart: () => void,
): Promise<RestartListener> {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // Until closed, a lost connection is retried, and so is every retry that fails in turn.
  const reconnectLater = (): void => {
    if (closed) return;
    retry = setTimeout(
      () =>
        void connect().catch((error: unknown) => {
          logger.warn({ err: error }, 'restart listener could not reconnect; trying again');
          reconnectLater();
        }),
      RECONNECT_MS,
    );
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      ...connectionSettings(url),
      application_name: `${APPLICATION_PREFIX}${process.pid}`,
    });
    next.on('notification', (message) => {
      if (message.channel === CHANNEL) onRestart();
    });
    next.on('error', (error) => {
      logger.warn({ err: error }, 'restart listener lost its database connection; reconnecting');
      void next.end().catch(() => undefined);
      reconnectLater();
    });
    await next.connect();
    await next.query(`LISTEN ${CHANNEL}`);
    client = next;
  };
  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
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
