/**
 * The backend's start-up sequence: nothing listens until the reconcile has run (core schema at
 * head, bootstrap checks passed, pending module changes applied) and the HTTP app is built from
 * the modules that are now installed, so a client never sees a half-started Ward.
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { createApp, type WardApp } from '../api/app.ts';
import { ensureFirstAdmin } from '../auth/first-admin.ts';
import { readGrants } from '../auth/grants.ts';
import { backendSettings } from './backend-settings.ts';
import type { Config } from '../config.ts';
import type { DriftEntry } from '../planner/drift.ts';
import { reconcile, type Reconciled } from '../applier/reconcile.ts';
import { databaseUrl, openDatabase } from '../db/connection.ts';
import { drainer } from './drain.ts';
import { WardError } from '../errors/ward-error.ts';
import { readModuleRows } from '../db/modules.ts';
import { ensureStorageDir } from '../storage-dir.ts';
import type { Logger } from '../logger.ts';

export interface Backend {
  server: Server;
  /** The database, resolved once at start (starting the embedded server if need be). */
  url: string;
  knex: Knex;
  app: WardApp;
  reconciled: Reconciled;
  /** What the drift watcher last found: /health reports it. */
  drift: { current: DriftEntry[] };
  /**
   * Graceful stop: accept nothing new, let requests in flight finish (at most `graceMs`, then
   * their connections are cut), then close the app's listeners and the pool.
   */
  close(graceMs?: number): Promise<void>;
}

export interface BackendHooks {
  /** `POST /api/v1/modules/-/restart` has answered 202. */
  onRestart: () => void;
  /** Where the first-run admin's sign-in instructions go. */
  print: (text: string) => void;
}

const DEFAULT_GRACE_MS = 10_000;

export async function startBackend(config: Config, logger: Logger, hooks: BackendHooks): Promise<Backend> {
  // Settings first: one that is wrong must stop the start before it touches the database.
  const { port, jsonLimit, trustProxy } = backendSettings(config);
  await ensureStorageDir(config.storageDir);
  const grants = await readGrants(config.grantsFile);
  const url = await databaseUrl(config);
  const knex = await openDatabase(
    { ...config, databaseUrl: url },
    { pool: 10, warn: (message) => logger.warn(message) },
  );
  const drift = { current: [] as DriftEntry[] };
  let reconciled: Reconciled;
  let app: WardApp;
  try {
    reconciled = await reconcile(knex, url, config, logger);
    await ensureFirstAdmin(knex, logger, hooks.print);
    app = await createApp({
      knex,
      inventory: reconciled.inventory,
      rows: await readModuleRows(knex),
      logger,
      onRestart: hooks.onRestart,
      health: { drift: () => drift.current },
      storageDir: config.storageDir,
      root: config.root,
      jsonLimit,
      trustProxy,
      grants,
    });
  } catch (error) {
    await knex.destroy();
    throw error;
  }
  const server = app.koa.listen(port);
  const drain = drainer(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    await app.close();
    await knex.destroy();
    throw listenError(error, port);
  }
  return {
    server,
    url,
    knex,
    app,
    reconciled,
    drift,
    async close(graceMs = DEFAULT_GRACE_MS) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      drain();
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(cut);
      await app.close();
      await knex.destroy();
    },
  };
}

/** The port cannot be had: say which, and what to do, rather than Node's error. */
function listenError(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return error;
  return new WardError(
    code === 'EADDRINUSE' ? 'port_in_use' : 'port_not_allowed',
    code === 'EADDRINUSE' ? `port ${port} is already in use` : `this process may not listen on port ${port}`,
    code === 'EADDRINUSE'
      ? 'stop what listens there (another Ward backend?), or set PORT to a free port (0 picks one)'
      : 'set PORT to 1024 or above, or run with the right to bind low ports',
    { cause: error },
  );
}
