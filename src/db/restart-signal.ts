/**
 * The `ward modules restart` channel: PostgreSQL NOTIFY on one channel, which every running backend
 * LISTENs to on a dedicated connection. The same connection announces the backend: its
 * application_name is `ward-backend:<id>`, so `pg_stat_activity` tells the CLI which backends
 * are up, with no registry to keep in sync. A backend opens it only after it serves traffic.
 * The id is the pid and a random part: a pid alone names no process once backends run in
 * containers, where each replica's backend (and its successor after a restart) has the same one.
 *
 * `ward serve` listens too, as `ward-supervisor:<pid>`: while no backend runs (one is restarting,
 * or its start keeps failing) the CLI still sees that one is on its way, and a request makes a
 * supervisor that is backing off start one at once. A backend that refuses a request because its
 * next start would fail (src/planner/preflight.ts) says so on a second channel, which
 * `ward modules restart --wait` LISTENs to.
 *
 * A request names the backends it is for, by the ids the CLI saw: a backend that started after
 * the CLI looked (the new one of a restart already under way) is not among them and keeps
 * serving, rather than being restarted by a second request meant for its predecessor.
 * Supervisors act on every request: with no backend named, a request only wakes them.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import type { Finding } from '../planner/preflight.ts';
import { listen, type Listener } from './listener.ts';
import { connectClient } from './pg-client.ts';

const CHANNEL = 'ward_restart';
const REFUSED_CHANNEL = 'ward_restart_refused';
const BACKEND_PREFIX = 'ward-backend:';
const SUPERVISOR_PREFIX = 'ward-supervisor:';
/** A NOTIFY payload must stay under 8000 bytes; a refusal's messages are cut to fit (the log has them whole). */
const PAYLOAD_LIMIT = 7_000;

/** This process among every process announced on the database, wherever it runs: `<pid>-<random>`. */
export const PROCESS_ID = `${process.pid}-${randomBytes(4).toString('hex')}`;

export interface RunningBackend {
  /** Unique to the process (PROCESS_ID); requests name backends by it. */
  id: string;
  /** For people: the pid inside its host or container. */
  pid: number;
  since: Date;
}

export interface RestartRequest {
  /** Restart even if the next start would refuse (`--force`): no preflight. */
  force: boolean;
  /** The ids of the backends to restart; null (a request from an older CLI): every backend. */
  backends: readonly string[] | null;
}

/** Pure: whether the backend with this id is to act on `request`. */
export const addressedTo = (request: RestartRequest, id: string): boolean =>
  request.backends === null || request.backends.includes(id);

export interface RestartRefusal {
  /** The backend that refused, and keeps serving: its id and, for people, its pid. */
  id: string;
  pid: number;
  findings: Finding[];
}

export interface RestartListener {
  close(): Promise<void>;
}

function restartListener(
  url: () => Promise<string>,
  applicationName: string,
  logger: Logger,
  onRestart: (request: RestartRequest) => void,
): Listener {
  let wasUp = false;
  return listen({
    channel: CHANNEL,
    open: async () => connectClient(await url(), applicationName),
    release: (client) => client.end(),
    onNotification: (payload) => onRestart(parseRequest(payload)),
    onUp: () => (wasUp = true),
    onDown: (error, retryInMs) => {
      if (wasUp)
        logger.warn({ err: error, retryInMs }, 'restart listener lost its database connection; trying again');
    },
  });
}

/**
 * In a backend: calls `onRestart` when a restart is requested. Rejects if the first connection
 * fails; after that, a lost connection is opened again for as long as the listener is open.
 */
export async function listenForRestart(
  url: string,
  logger: Logger,
  onRestart: (request: RestartRequest) => void,
): Promise<RestartListener> {
  const listener = restartListener(
    async () => url,
    `${BACKEND_PREFIX}${PROCESS_ID}`,
    logger,
    (request) => {
      if (addressedTo(request, PROCESS_ID)) onRestart(request);
    },
  );
  try {
    await listener.ready;
  } catch (error) {
    await listener.close();
    throw error;
  }
  return listener;
}

/**
 * In `ward serve`: announces the supervisor and calls `onRestart` on each request. `url` is asked
 * at each connection attempt (the embedded server may not run yet); attempts go on, with back-off,
 * until it is closed.
 */
export function listenAsSupervisor(
  url: () => Promise<string>,
  logger: Logger,
  onRestart: (request: RestartRequest) => void,
): RestartListener {
  return restartListener(url, `${SUPERVISOR_PREFIX}${PROCESS_ID}`, logger, onRestart);
}

async function announced(knex: Knex, prefix: string): Promise<RunningBackend[]> {
  const rows = (await knex('pg_stat_activity')
    .whereRaw('datname = current_database()')
    .andWhere('application_name', 'like', `${prefix}%`)
    .select('application_name', 'backend_start')) as Array<{ application_name: string; backend_start: Date }>;
  return rows
    .map((row) => {
      const id = row.application_name.slice(prefix.length);
      return { id, pid: Number.parseInt(id, 10), since: row.backend_start };
    })
    .sort((a, b) => a.pid - b.pid || a.id.localeCompare(b.id));
}

export const runningBackends = (knex: Knex): Promise<RunningBackend[]> => announced(knex, BACKEND_PREFIX);

/** The `ward serve` processes connected to this database (each starts a backend whenever it has none). */
export const runningSupervisors = (knex: Knex): Promise<RunningBackend[]> =>
  announced(knex, SUPERVISOR_PREFIX);

/**
 * Asks the backends `request.backends` names to restart, and wakes every supervisor; NOTIFY is
 * delivered when this transaction commits.
 */
export async function requestRestart(
  knex: Knex,
  request: RestartRequest = { force: false, backends: null },
): Promise<void> {
  await knex.raw('select pg_notify(?, ?)', [
    CHANNEL,
    JSON.stringify({
      requestedAt: new Date().toISOString(),
      force: request.force,
      backends: request.backends,
    }),
  ]);
}

/**
 * A payload from an older CLI (none, or backends named by pid alone), is a plain request for
 * every backend: a pid cannot say which of several containers' backends it meant.
 */
export function parseRequest(payload: string): RestartRequest {
  try {
    const value = JSON.parse(payload) as { force?: unknown; backends?: unknown };
    const backends =
      Array.isArray(value.backends) && value.backends.every((id) => typeof id === 'string')
        ? (value.backends as string[])
        : null;
    return { force: value.force === true, backends };
  } catch {
    return { force: false, backends: null };
  }
}

/** In a backend that refused a request: tells whoever waits on it (`ward modules restart --wait`). */
export async function announceRefusal(knex: Knex, findings: readonly Finding[]): Promise<void> {
  let limit = 2_000;
  let payload: string;
  do {
    const cut = (text: string) => (text.length > limit ? `${text.slice(0, limit)}…` : text);
    payload = JSON.stringify({
      id: PROCESS_ID,
      pid: process.pid,
      findings: findings.map(({ code, message, hint }) => ({ code, message: cut(message), hint: cut(hint) })),
    } satisfies RestartRefusal);
    limit = Math.floor(limit / 2);
  } while (Buffer.byteLength(payload) > PAYLOAD_LIMIT);
  await knex.raw('select pg_notify(?, ?)', [REFUSED_CHANNEL, payload]);
}

/** Calls `onRefusal` for each backend that refuses a restart from now on. Rejects if the first connection fails. */
export async function listenForRefusals(
  url: string,
  onRefusal: (refusal: RestartRefusal) => void,
): Promise<RestartListener> {
  const listener = listen({
    channel: REFUSED_CHANNEL,
    open: () => connectClient(url),
    release: (client) => client.end(),
    onNotification: (payload) => {
      const refusal = parseRefusal(payload);
      if (refusal !== null) onRefusal(refusal);
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

function parseRefusal(payload: string): RestartRefusal | null {
  try {
    const value = JSON.parse(payload) as Partial<RestartRefusal>;
    if (typeof value.id !== 'string' || typeof value.pid !== 'number' || !Array.isArray(value.findings))
      return null;
    return { id: value.id, pid: value.pid, findings: value.findings };
  } catch {
    return null;
  }
}
