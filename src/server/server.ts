/**
 * The backend's start-up sequence: nothing listens until the reconcile has run (core schema at
 * head, bootstrap checks passed, pending module changes applied) and the HTTP app is built from
 * the modules that are now installed, so a client never sees a half-started Ward.
 */
import { sealAtStart } from '../auth/seal-stored.ts';
import { embeddedSecretKey } from '../config/embedded-secret-key.ts';
import { sealingKey } from '../auth/secret-seal.ts';
import { startAuditRetention } from './audit-retention.ts';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import type { Knex } from 'knex';
import { createApp, type WardApp } from '../api/app.ts';
import { ensureFirstAdmin } from '../auth/first-admin.ts';
import { readGrants } from '../auth/grants.ts';
import type { Grants } from '../auth/permissions.ts';
import { backendSettings, type MetricsSettings } from '../config/backend-settings.ts';
import type { Config } from '../config.ts';
import type { DriftEntry } from '../planner/drift.ts';
import type { Finding } from '../planner/preflight.ts';
import { announceSteps } from '../applier/listeners.ts';
import type { MetricsEndpoint } from './metrics-endpoint.ts';
import { observeRequest } from '../api/http-metrics.ts';
import { watchPool } from '../metrics/pool.ts';
import { enableMetrics, type MetricsRegistry } from '../metrics/registry.ts';
import { stepMetrics, timedReconcile } from '../applier/step-metrics.ts';
import { reconcile, type Reconciled } from '../applier/reconcile.ts';
import { databaseUrl, openDatabase } from '../db/connection.ts';
import { lazyKnex, type LazyKnex } from '../db/lazy-knex.ts';
import { openPool } from '../db/pg-client.ts';
import type pg from 'pg';
import { drainable } from './drain.ts';
import { nextStartSources } from '../inspect/module-reports.ts';
import { recheck, rereadConfig } from '../inspect/preflight.ts';
import { WardError } from '../errors/ward-error.ts';
import { readModuleRows } from '../db/modules.ts';
import { syncFrontendModules } from '../manifests/frontend-layers.ts';
import { ensureStorageDir } from '../storage-dir.ts';
import type { Logger } from '../logger.ts';

export interface Backend {
  server: Server;
  /** The database, resolved once at start (starting the embedded server if need be). */
  url: string;
  /** Usable once `loadKnex()` has resolved: a start with nothing to change does not load it. */
  knex: Knex;
  /** Loads knex (once); the backend calls it as soon as it serves. */
  loadKnex(): Promise<Knex>;
  app: WardApp;
  /**
   * Resolves once the server has answered its first request, or SETUP_AFTER_MS after listening
   * without one: work set up once a backend serves waits for it rather than delay that answer.
   */
  firstAnswered: Promise<void>;
  /** The metrics listener, when WARD_METRICS_PORT is set. */
  metrics: MetricsEndpoint | null;
  reconciled: Reconciled;
  /** What the drift watcher last found: /health reports it. */
  drift: { current: DriftEntry[] };
  /** What the next start would refuse, read afresh: a restart asks before it stops this backend. */
  preflight(): Promise<Finding[]>;
  /**
   * Graceful stop: accept nothing new, let requests in flight finish (drain.ts; at most `graceMs`,
   * then their connections are cut), then stop the modules' services and the job queue (running
   * jobs are left to the queue to run again), the app's listeners, and last the pool.
   */
  close(graceMs?: number): Promise<void>;
}

export interface BackendHooks {
  /** `POST /api/v1/modules/-/restart` passed the preflight (or was forced) and has answered 202. */
  onRestart: () => void;
  /** Where the first-run admin's sign-in instructions go (the password itself goes to a file). */
  print: (text: string) => void;
}

const DEFAULT_GRACE_MS = 10_000;

export async function startBackend(config: Config, logger: Logger, hooks: BackendHooks): Promise<Backend> {
  // Settings first: one that is wrong must stop the start before it touches the database.
  const settings = backendSettings(config);
  const { port, host, jsonLimit, trustProxy, sessionIdleMs, requireTwoFactor } = settings;
  // Before the database too: a metrics port that is taken stops the start first. prom-client
  // loads while the database opens; the first scrape waits for it.
  const metrics = settings.metrics === null ? null : await startMetrics(settings.metrics, logger);
  let url: string;
  let grants: Grants;
  let sql: pg.Pool;
  try {
    await ensureStorageDir(config.storageDir);
    grants = await readGrants(config.grantsFile);
    url = await databaseUrl(config);
    // knex is loaded when something needs it (lazy-knex.ts): a start with nothing to change checks
    // with plain queries on this pool, which `/health` keeps using (two connections at most).
    sql = await openPool(url, 2);
  } catch (error) {
    await metrics?.endpoint.close();
    throw error;
  }
  // After the storage folder is checked: the embedded database's key is generated there.
  const sealing = sealingKey(
    settings.secretKey ?? (config.databaseUrl === null ? await embeddedSecretKey(config.storageDir) : null),
  );
  const lazy: LazyKnex = lazyKnex(() =>
    openDatabase({ ...config, databaseUrl: url }, { pool: 10, warn: (message) => logger.warn(message) }),
  );
  const { knex } = lazy;
  const closeDatabase = async () => {
    await lazy.destroy();
    await sql.end();
  };
  // Resolved after the first answer: the sign-in listener's connection waits for it (app.ts).
  let answered: () => void = () => undefined;
  const authListenerAfter = new Promise<void>((resolve) => (answered = resolve));
  const drift = { current: [] as DriftEntry[] };
  const preflight = async () => recheck(await lazy.load(), config);
  let reconciled: Reconciled;
  let app: WardApp;
  let unwatchPool: () => void = () => undefined;
  try {
    // Every step is recorded before the reconcile runs its first. The pool's figures are knex's
    // pool: with metrics on, knex is loaded at start to watch it from its first connection.
    if (metrics !== null) {
      await metrics.registry;
      unwatchPool = watchPool(await lazy.load());
    }
    const db = { sql, knex: lazy.load };
    // Each step is announced over NOTIFY for `ward modules restart --wait` to follow; steps run
    // only after the reconcile has loaded knex for the apply.
    reconciled = await timedReconcile(() =>
      reconcile(db, url, config, logger, [announceSteps(knex), stepMetrics()]),
    );
    await ensureFirstAdmin(db, logger, config.storageDir, hooks.print);
    await sealAtStart(sql, sealing, logger);
    const rows = await readModuleRows(sql);
    // Before serving, so a plain start's pages work without `ward modules sync-frontend`.
    await syncFrontendModules(config, reconciled.inventory, rows, (message) => logger.warn(message));
    app = await createApp({
      knex,
      loadKnex: lazy.load,
      sql,
      databaseUrl: url,
      inventory: reconciled.inventory,
      rows,
      logger,
      onRestart: hooks.onRestart,
      preflight,
      moduleSources: nextStartSources(knex, () => rereadConfig(config)),
      health: { drift: () => drift.current },
      storageDir: config.storageDir,
      root: config.root,
      frontendDir: config.frontendDir,
      jsonLimit,
      trustProxy,
      sessionIdleMs,
      twoFactorPolicy: requireTwoFactor,
      sealingKey: sealing,
      grants,
      observeRequest: metrics === null ? undefined : observeRequest,
      authListenerAfter,
    });
  } catch (error) {
    unwatchPool();
    await metrics?.endpoint.close();
    await closeDatabase();
    throw error;
  }
  const retention = startAuditRetention(lazy.load, settings.auditRetentionDays, logger);
  const tracked = drainable(app.handle);
  // node:http through `getBuiltinModule`: an ES import of it makes Node build every export,
  // loading its bundled fetch client (undici), some 25-40 ms of a start.
  const server = process.getBuiltinModule('node:http').createServer(tracked.listener).listen(port, host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    await retention.stop();
    await app.close();
    unwatchPool();
    await metrics?.endpoint.close();
    await closeDatabase();
    throw listenError(error, port, host);
  }
  const firstAnswered = firstAnswer(server, SETUP_AFTER_MS);
  void firstAnswered.then(answered);
  return {
    server,
    firstAnswered,
    url,
    knex,
    loadKnex: lazy.load,
    app,
    metrics: metrics?.endpoint ?? null,
    reconciled,
    drift,
    preflight,
    async close(graceMs = DEFAULT_GRACE_MS) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      tracked.drain(server);
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(cut);
      await retention.stop();
      await app.close();
      // Scrapes go on answering while requests drain.
      unwatchPool();
      await metrics?.endpoint.close();
      await closeDatabase();
    },
  };
}

/**
 * The longest that work set up once a backend serves (its sign-in and restart listeners, the drift
 * watcher, loading knex) waits for the first request to be answered.
 */
const SETUP_AFTER_MS = 100;

/** Resolves once the server has answered its first request, or after `ms` without one. */
function firstAnswer(server: Server, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      server.off('request', onRequest);
      resolve();
    };
    const onRequest = (_request: IncomingMessage, response: ServerResponse) => response.once('close', done);
    const timer = setTimeout(done, ms);
    server.once('request', onRequest);
  });
}

/** Listens for scrapes and starts loading prom-client, which `registry` waits for. */
async function startMetrics(
  settings: MetricsSettings,
  logger: Logger,
): Promise<{ endpoint: MetricsEndpoint; registry: Promise<MetricsRegistry> }> {
  const registry = enableMetrics();
  // Awaited before the reconcile; a failure to load is reported there, not as an unhandled rejection.
  registry.catch(() => undefined);
  try {
    // Imported here, not at start: an ES module importing `node:http` makes Node build all its
    // exports, which loads its bundled fetch and WebSocket client (undici), some 25 ms of a start.
    const { serveMetrics } = await import('./metrics-endpoint.ts');
    return { endpoint: await serveMetrics(settings, registry, logger), registry };
  } catch (error) {
    throw listenError(error, settings.port, settings.host, METRICS_ADDRESS);
  }
}

/**
 * Throws listenError's WardError when `port` on `host` cannot be listened on now (port 0 always
 * can): for `ward serve`, before it starts a backend that would fail on it.
 */
export async function assertAddressFree(
  port: number,
  host: string,
  names: AddressSettings = API_ADDRESS,
): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(port, host, () => probe.close(() => resolve()));
    });
  } catch (error) {
    throw listenError(error, port, host, names);
  }
}

/** The settings that name an address: the API's, or the metrics listener's. */
export interface AddressSettings {
  port: string;
  host: string;
}

export const API_ADDRESS: AddressSettings = { port: 'PORT', host: 'HOST' };
export const METRICS_ADDRESS: AddressSettings = { port: 'WARD_METRICS_PORT', host: 'WARD_METRICS_HOST' };

/** The address cannot be had: say which, and what to do, rather than Node's error. */
export function listenError(
  error: unknown,
  port: number,
  host: string,
  names: AddressSettings = API_ADDRESS,
): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const options = { cause: error };
  switch (code) {
    case 'EADDRINUSE':
      return new WardError(
        'port_in_use',
        `port ${port} is already in use on ${host}`,
        `stop what listens there (another Ward backend?), or set ${names.port} to a free port (0 picks one)`,
        options,
      );
    case 'EACCES':
      return new WardError(
        'port_not_allowed',
        `this process may not listen on port ${port}`,
        `set ${names.port} to 1024 or above, or run with the right to bind low ports`,
        options,
      );
    case 'EADDRNOTAVAIL':
      return new WardError(
        'host_not_local',
        `${names.host}=${host} is not an address of this machine`,
        `set ${names.host} to one of its addresses, 127.0.0.1 (the default) or 0.0.0.0 for every interface`,
        options,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new WardError(
        'host_not_found',
        `${names.host}=${host} does not resolve to an address`,
        `set ${names.host} to an IP address of this machine, 127.0.0.1 (the default) or 0.0.0.0 for every interface`,
        options,
      );
    default:
      return error;
  }
}
