/**
 * The HTTP application, served on node:http (respond.ts): /health, sign-in, /me, the module
 * endpoints and the modules admin reads, every installed module's routes under /api/v1/<module>/,
 * the OpenAPI document generated from all of them, and the web frontend on every other GET path
 * (frontend.ts). Built once per process from the modules the start-up reconcile left installed:
 * modules change only at a restart, so the permission map is fixed here; who holds which role is
 * read per credential and cached until a `ward_auth` notification says it changed.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { Knex } from 'knex';
import type { Queryable } from '../db/pg-client.ts';
import { createAuthenticator, type Authenticator } from '../auth/authenticator.ts';
import { listenForAuthChanges, type ChangeListener } from '../auth/change-listener.ts';
import type { Grants } from '../auth/permissions.ts';
import { activeModules, AUTH_MODULE, installedModules, type InstalledModule } from '../auth/installed.ts';
import { buildPermissionMap, type PermissionMap } from '../auth/permissions.ts';
import { PrincipalCache } from '../auth/principal-cache.ts';
import { admissions, HASHING_ADMISSIONS, type Admissions } from '../auth/hash-limit.ts';
import { postgresSignInThrottle, type SignInThrottle } from '../auth/throttle-store.ts';
import { ROOT } from '../config.ts';
import type { Finding } from '../planner/preflight.ts';
import type { Inventory, ModuleRow } from '../planner/types.ts';
import type { Logger } from '../logger.ts';
import { doctorReport, type ModuleSources } from '../inspect/module-reports.ts';
import { DEFAULT_JSON_LIMIT } from '../config/size.ts';
import { DEFAULT_SESSION_IDLE_MINUTES } from '../config/backend-settings.ts';
import { answerFailureLogger } from './errors.ts';
import { requestContext } from './request-context.ts';
import { serve } from './respond.ts';
import type { AnsweredRequest } from './http-metrics.ts';
import { frontendMiddleware } from './frontend.ts';
import { frontendModulesFile } from '../manifests/frontend-layers.ts';
import { JobQueue } from '../jobs/queue.ts';
import { moduleJobs } from '../sdk/jobs.ts';
import { ModuleApis } from '../sdk/module-apis.ts';
import { startModuleServices } from './module-services.ts';
import { loadModuleRoutes, type ModuleFailure } from './mount-modules.ts';
import { buildRouter } from './router.ts';
import { authRoutes } from './routes/auth.ts';
import { healthRoutes, type HealthSources } from './routes/health.ts';
import { meRoutes } from './routes/me.ts';
import { auditRoutes } from './routes/audit.ts';
import { twoFactorRoutes } from './routes/two-factor.ts';
import { userRoutes } from './routes/users.ts';
import type { SealingKey } from '../auth/secret-seal.ts';
import type { TwoFactorPolicy } from '../auth/two-factor.ts';
import { moduleAdminRoutes } from './routes/modules-admin.ts';
import { moduleRoutes } from './routes/modules.ts';
import { ajvPerModule } from '../sdk/schema.ts';

export type { HealthSources };

export interface AppDeps {
  /** A loaded knex, or lazy-knex.ts's stand-in with `loadKnex` below. */
  knex: Knex;
  /**
   * Loads `knex` when it is a stand-in: every request but `/health` waits for it, and a start
   * with module services (which may query as they start) loads it before them. Default: loaded.
   */
  loadKnex?: () => Promise<Knex>;
  /** Where `/health` queries: a backend's plain pg pool, so it answers before knex loads. Default: `knex`. */
  sql?: Queryable;
  /** The database's URL: the auth listener then connects with pg, not through knex. Default: knex's client. */
  databaseUrl?: string;
  inventory: Inventory;
  /** `core_module` rows as the start-up reconcile left them (`readModuleRows(knex)` after it). */
  rows: readonly ModuleRow[];
  logger: Logger;
  storageDir: string;
  /** Called once `POST /api/v1/modules/-/restart` has answered 202: stop gracefully. */
  onRestart: () => void;
  /** What the next start would refuse; the restart endpoint answers 409 while it finds anything. Default: nothing. */
  preflight?: () => Promise<Finding[]>;
  /**
   * Where the modules admin endpoints read the disk and the doctor's report (nextStartSources).
   * Default: `inventory` above, and a doctor that checks no settings or grants file.
   */
  moduleSources?: ModuleSources;
  /** Extra role grants, as `readGrants` read them from the grants file. Default: none. */
  grants?: Grants;
  /** Largest JSON body accepted, in bytes. Default 1 MiB. */
  jsonLimit?: number;
  /** Trust X-Forwarded-* from a reverse proxy (the cookie's Secure flag follows X-Forwarded-Proto). */
  trustProxy?: boolean;
  /** Where frontend layer paths are relative to (as in frontend/modules.json). Default: the Ward directory. */
  root?: string;
  /** Where modules.json is (WARD_FRONTEND_DIR). Default: `<root>/frontend`. */
  frontendDir?: string;
  /** The built web shell served at `/`. Default: `<root>/frontend/dist`. */
  frontendDist?: string;
  health?: HealthSources;
  /** Sign-in throttling (src/auth/throttle-store.ts). Default: counts in `knex`'s database, shared by every replica. */
  signInThrottle?: SignInThrottle;
  /** Places for sign-ins hashing at once (src/auth/hash-limit.ts). Default: HASHING_ADMISSIONS per app. */
  signInHashing?: Admissions;
  /** Told of every answered request and its seconds (`observeRequest` when metrics are on). Default: none. */
  observeRequest?: (request: AnsweredRequest, seconds: number) => void;
  /** A session without a request for this long ends (WARD_SESSION_IDLE_MINUTES). Default 15 minutes. */
  sessionIdleMs?: number;
  /** Who must have two-factor sign-in (WARD_REQUIRE_2FA). Default: nobody. */
  twoFactorPolicy?: TwoFactorPolicy;
  /** Seals the two-factor secrets in the database (SECRET_KEY). Default: none, and two-factor sign-in is refused. */
  sealingKey?: SealingKey | null;
  /**
   * When given, the `ward_auth` listener connects once this resolves (a backend: after its first
   * answer) instead of before the app is returned, so a start pays no handshake for it; the
   * principal cache stays off, every request reading the database, until it listens.
   */
  authListenerAfter?: Promise<void>;
}

export interface WardApp {
  /** The listener for `http.createServer`: every request, answered. */
  handle: RequestListener;
  /** The document served at /api/v1/openapi.json. */
  openapi: object;
  /** Modules whose routes could not be mounted (their prefix answers 503). */
  failures: readonly ModuleFailure[];
  /**
   * Stops the modules' services and the job queue (running jobs get `jobGraceMs`, default 5 s, to
   * stop, then are left to the queue to run again) and the auth listener. Call after the HTTP
   * server has closed, before `knex.destroy()`. A second call waits for the first.
   */
  close(jobGraceMs?: number): Promise<void>;
}

const JOB_GRACE_MS = 5000;

/** Builds the HTTP app from the modules installed now; routes of modules that fail to load answer 503. */
export async function createApp(deps: AppDeps): Promise<WardApp> {
  const { knex, logger } = deps;
  const installed = installedModules(deps.inventory, deps.rows);
  // Inactive modules keep their permissions (roles still name them) but serve nothing.
  const { active, inactive } = activeModules(deps.inventory, deps.rows);
  // Its own connection: the handshake proceeds while the grants and the module routes load.
  const listening = listenForAuth(deps, active);
  try {
    const grants = deps.grants ?? {};
    const jobs = new JobQueue(knex, logger);
    // One SDK view per module, shared by its routes, its services and its API.
    const apis = new ModuleApis({
      modules: new Map(active.map((installed) => [installed.module.name, installed.module])),
      knex,
      logger,
      storageDir: deps.storageDir,
      jobsFor: (module) => moduleJobs(jobs, module, knex, logger.child({ module })),
    });
    const loaded = await loadModuleRoutes(active, { knex, logger, storageDir: deps.storageDir, apis });
    const map = buildPermissionMap(
      installed.map(({ module }) => ({ name: module.name, manifest: module.manifest })),
      grants,
      loaded.routes.flatMap((route) => (route.permission === null ? [] : [route.permission])),
    );
    for (const warning of map.warnings) logger.warn(warning);
    const auth = startAuth(deps, listening, map);
    const backend = { startId: randomUUID(), startedAt: new Date() };
    const throttle = deps.signInThrottle ?? postgresSignInThrottle(knex);
    const hashing = deps.signInHashing ?? admissions(HASHING_ADMISSIONS);
    const core = [
      ...healthRoutes({ db: deps.sql ?? knex, health: deps.health ?? { drift: () => [] } }),
      ...authRoutes({
        knex,
        auth,
        logger,
        throttle,
        hashing,
        storageDir: deps.storageDir,
        sealingKey: deps.sealingKey ?? null,
      }),
      ...twoFactorRoutes({
        knex,
        auth,
        policy: deps.twoFactorPolicy ?? 'off',
        throttle,
        hashing,
        logger,
        sealingKey: deps.sealingKey ?? null,
      }),
      ...meRoutes({ map, idleMs: auth?.idleMs ?? null }),
      ...(auth === null ? [] : userRoutes({ knex, map, logger })),
      ...(auth === null ? [] : auditRoutes({ knex, logger })),
      ...moduleRoutes({
        knex,
        backend,
        installed: active,
        root: deps.root ?? ROOT,
        onRestart: deps.onRestart,
        preflight: deps.preflight ?? (async () => []),
        logger,
      }),
      ...moduleAdminRoutes({ knex, backend, sources: deps.moduleSources ?? startSources(deps) }),
    ];
    const routeDeps = { auth, knex, ajvFor: ajvPerModule(), jsonLimit: deps.jsonLimit ?? DEFAULT_JSON_LIMIT };
    const withRoutes = inactive.filter((entry) => deps.inventory.modules.get(entry.module)?.routes != null);
    const { router, openapi, failures } = buildRouter(core, loaded, routeDeps, logger, withRoutes);
    const frontend = frontendMiddleware(frontendFiles(deps, active));
    const context = requestContext({ logger, observe: deps.observeRequest ?? null, loadKnex: deps.loadKnex });
    // The chain is fixed: the request context around the router, and the web frontend for what no
    // route answered.
    const handle = serve(
      (ctx, next) => context(ctx, () => router(ctx, () => frontend(ctx, next))),
      // Trusting a proxy, the client's address is the last X-Forwarded-For entry (context.ts).
      { proxy: deps.trustProxy ?? false },
      answerFailureLogger(logger),
    );
    // Serving without the listener is safe (the cache stays off), only slower; it keeps retrying.
    // Unless it waits for the first answer, awaited last, so that its handshake overlaps building
    // the router.
    if (deps.authListenerAfter === undefined) await listening?.listener.ready.catch(() => undefined);
    // Last, so that a service's start (which may define jobs that start running at once) sees the
    // app complete; still before the caller listens. A service may query as it starts: knex first.
    if (deps.loadKnex !== undefined && active.some(({ module }) => module.services !== null))
      await deps.loadKnex();
    const services = await startModuleServices(active, {
      knex,
      logger,
      storageDir: deps.storageDir,
      sdkFor: (module) => apis.sdkFor(module),
    });
    let closing: Promise<void> | null = null;
    return {
      handle,
      openapi,
      failures,
      close: (jobGraceMs = JOB_GRACE_MS) =>
        (closing ??= (async () => {
          await services.stop();
          await jobs.stop(jobGraceMs);
          await listening?.listener.close();
        })()),
    };
  } catch (error) {
    await listening?.listener.close();
    throw error;
  }
}

/** The web shell, modules.json and the layer of each installed module, for `/` and the files under it. */
function frontendFiles(deps: AppDeps, installed: readonly InstalledModule[]) {
  const root = deps.root ?? ROOT;
  const modules = new Map(
    installed.flatMap(({ module }) =>
      module.frontend === null ? [] : [[module.name, { dir: module.dir, entry: module.frontend }] as const],
    ),
  );
  return {
    dist: deps.frontendDist ?? path.join(root, 'frontend', 'dist'),
    modulesFile: frontendModulesFile(deps.frontendDir ?? path.join(root, 'frontend')),
    modules,
  };
}

/** The modules the app was built with, and no settings to check: for apps built without a configuration. */
function startSources(deps: AppDeps): ModuleSources {
  return {
    inventory: async () => deps.inventory,
    doctor: () =>
      doctorReport(deps.knex, {
        inventory: deps.inventory,
        files: { settings: null, database: null, storage: null, grants: null },
        searched: [],
      }),
  };
}

interface AuthListening {
  cache: PrincipalCache;
  listener: ChangeListener;
}

/** The principal cache and the listener that feeds it, when the base module runs. */
function listenForAuth(deps: AppDeps, installed: readonly InstalledModule[]): AuthListening | null {
  if (!installed.some(({ module }) => module.name === AUTH_MODULE)) return null;
  const cache = new PrincipalCache();
  const open = () => listenForAuthChanges(deps.databaseUrl ?? deps.knex, cache, deps.logger);
  if (deps.authListenerAfter === undefined) return { cache, listener: open() };
  let closed = false;
  let opened: ChangeListener | null = null;
  const ready = deps.authListenerAfter.then(() => {
    if (closed) return;
    opened = open();
    return opened.ready;
  });
  ready.catch(() => undefined);
  return {
    cache,
    listener: {
      ready,
      async close() {
        // An app closed before its first answer never opens the listener.
        closed = true;
        cache.setEnabled(false);
        await opened?.close();
      },
    },
  };
}

function startAuth(deps: AppDeps, listening: AuthListening | null, map: PermissionMap): Authenticator | null {
  if (listening === null) {
    deps.logger.warn(
      'the base module is not installed: nobody can sign in, and every /api/v1 route but sign-in answers 503',
    );
    return null;
  }
  return createAuthenticator({
    knex: deps.knex,
    map,
    cache: listening.cache,
    logger: deps.logger,
    idleMs: deps.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MINUTES * 60_000,
    twoFactorPolicy: deps.twoFactorPolicy ?? 'off',
  });
}
