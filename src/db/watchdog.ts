/**
 * A backend's watch over its database. The embedded server can stop under a running backend
 * (`ward db stop`, a crash); a backend that owns the embedded mode (no DATABASE_URL) starts it
 * again, so requests answer 503 `database_unavailable` only meanwhile. An external server is not
 * Ward's to start: the pool tries again on each request, and this logs what is wrong and what to
 * check until the server answers.
 *
 * It looks when the pool fails to open a connection and, for the embedded server, every few
 * seconds too (an idle backend gets no request to notice with). While the database is away it
 * tries again with back-off, 500 ms doubling to 30 s, logging each failure with its hint.
 */
import type { Knex } from 'knex';
import { isWardError, WardError } from '../errors/ward-error.ts';
import type { Logger } from '../logger.ts';
import type * as Embedded from './embedded.ts';
import { databaseError } from './connection.ts';
import { connectClient } from './pg-client.ts';

const CHECK_EVERY_MS = 5_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export interface DatabaseWatch {
  close(): Promise<void>;
}

/** The part of knex's pool (a tarn Pool; knex types its client as any) this listens to. */
interface PoolEvents {
  on(event: 'createFail', handler: () => void): void;
  removeListener(event: 'createFail', handler: () => void): void;
}

/** What the watch uses of embedded.ts; tests give their own. */
export type EmbeddedControl = Pick<typeof Embedded, 'embeddedPaths' | 'embeddedStatus' | 'ensureEmbedded'>;

export function watchDatabase(options: {
  knex: Knex;
  /** What the backend connected to at start. */
  url: string;
  /** The storage folder when this backend owns the embedded server (no DATABASE_URL), else null. */
  storageDir: string | null;
  logger: Logger;
  /** Loaded when first needed, as in connection.ts: a backend on DATABASE_URL never needs it. */
  embedded?: () => Promise<EmbeddedControl>;
}): DatabaseWatch {
  const { knex, url, storageDir, logger, embedded = () => import('./embedded.ts') } = options;
  let closed = false;
  let down = false;
  let delay = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | null = null;

  const run = () => {
    if (checking === null && !closed) checking = check().finally(() => (checking = null));
  };
  const later = (ms: number) => {
    clearTimeout(timer);
    if (closed) return;
    timer = setTimeout(run, ms);
    timer.unref();
  };

  /** Starts the embedded server if it does not run; whether it did. */
  const startIfStopped = async (dir: string): Promise<boolean> => {
    const { embeddedPaths, embeddedStatus, ensureEmbedded } = await embedded();
    if ((await embeddedStatus(dir)).running) return false;
    // Closed meanwhile: the backend is stopping, perhaps because of a `ward db stop` that starting
    // the server again would undo.
    if (closed) return false;
    if (!down)
      logger.warn(
        { dataDir: embeddedPaths(dir).dataDir },
        'the embedded PostgreSQL is not running (stopped by `ward db stop`, or it crashed); starting it again. To keep it stopped, stop this backend first',
      );
    const server = await ensureEmbedded(dir, { initialise: false });
    if (server.url !== url)
      throw new WardError(
        'embedded_replaced',
        `the embedded database under ${dir} was created anew since this backend started (its port or password changed)`,
        'restart the backend (`ward serve`, or the container) so that it connects to the new database',
      );
    return true;
  };

  const check = async (): Promise<void> => {
    try {
      const started = storageDir !== null && (await startIfStopped(storageDir));
      // An embedded server that listens is enough while all is well; otherwise a connection proves it.
      if (storageDir === null || started || down) await (await connectClient(url)).end();
      if (down || started) logger.info('the database answers again; serving requests');
      down = false;
      delay = RETRY_MIN_MS;
      if (storageDir !== null) later(CHECK_EVERY_MS);
    } catch (error) {
      down = true;
      const explained = databaseError(error, url);
      const fields = isWardError(explained) ? { code: explained.code, hint: explained.hint } : { err: error };
      logger.warn(
        { ...fields, retryInMs: delay },
        `database unavailable: ${explained instanceof Error ? explained.message : String(explained)}; requests get 503 until it answers, next try in ${delay} ms`,
      );
      later(delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  };

  const pool = knex.client.pool as PoolEvents | undefined;
  const onCreateFail = () => {
    if (!down) run();
  };
  pool?.on('createFail', onCreateFail);
  if (storageDir !== null) later(CHECK_EVERY_MS);
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      pool?.removeListener('createFail', onCreateFail);
      // A check under way may still be starting the server: the backend stops only after it.
      await checking;
    },
  };
}
