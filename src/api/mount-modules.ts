/**
 * Loads the routes of every active installed module that ships a routes file (src/sdk/index.ts is
 * the contract) and checks them before anything is mounted. A module whose routes fail to load or
 * break the contract is not mounted; its prefix answers 503 with the reason instead, and every
 * other module is served: one broken module must not take the clinic down. An inactive module
 * (planner/inactive.ts) is not loaded at all; its prefix answers 503 with the dependency it lacks.
 */
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type { InstalledModule } from '../auth/installed.ts';
import type { Logger } from '../logger.ts';
import { ApiError } from '../errors/api-error.ts';
import { inactiveText, type InactiveModule } from '../planner/inactive.ts';
import type { ModuleRoutes, RouteDefinition, RouteMethod } from '../sdk/index.ts';
import { ModuleApis } from '../sdk/module-apis.ts';
import type { ApiRoute } from './route.ts';

export const API_PREFIX = '/api/v1';

/** First path segments Ward's own routes use; a module with one of these names cannot be mounted. */
export const RESERVED_PREFIXES: ReadonlySet<string> = new Set(['auth', 'me', 'modules', 'openapi.json']);

const METHODS: ReadonlySet<RouteMethod> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const PERMISSION = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;
const PATH = /^\/[A-Za-z0-9_\-./:{}*]*$/;

export interface ModuleFailure {
  module: string;
  message: string;
}

export interface LoadedRoutes {
  routes: ApiRoute[];
  failures: ModuleFailure[];
}

export interface LoadDeps {
  knex: Knex;
  logger: Logger;
  storageDir: string;
  /** The modules' SDK views, shared by their routes, services and APIs. Default: views without jobs. */
  apis?: ModuleApis;
}

/**
 * Why a module's route list breaks the contract, or null. Pure. `declared`: the manifest's
 * `permissions`; a route guarded by any other could be called only by holders of `*`.
 */
export function contractProblem(module: string, routes: unknown, declared: readonly string[]): string | null {
  if (RESERVED_PREFIXES.has(module))
    return `the name ${module} is reserved for Ward's own routes under ${API_PREFIX}/${module}`;
  if (!Array.isArray(routes)) return 'the default export must return an array of route definitions';
  const seen = new Set<string>();
  for (const [index, value] of routes.entries()) {
    const route = value as Partial<RouteDefinition> | null;
    const where = `route ${index}${typeof route?.method === 'string' && typeof route.path === 'string' ? ` (${route.method} ${route.path})` : ''}`;
    if (route === null || typeof route !== 'object') return `${where} is not an object`;
    if (!METHODS.has(route.method as RouteMethod))
      return `${where}: method must be one of ${[...METHODS].join(', ')}`;
    if (typeof route.path !== 'string' || !PATH.test(route.path))
      return `${where}: path must start with / and hold only URL path characters`;
    if (
      route.permission !== null &&
      (typeof route.permission !== 'string' || !PERMISSION.test(route.permission))
    )
      return `${where}: permission must be a permission name such as ${module}.item.read, or null for any signed-in user`;
    if (route.permission !== null && !declared.includes(route.permission))
      return `${where}: permission ${route.permission} is not declared in the manifest's permissions (${declared.length === 0 ? 'none' : declared.join(', ')}); declare it there or fix the name`;
    if (typeof route.handler !== 'function') return `${where}: handler must be a function`;
    if (route.body !== undefined && (typeof route.body !== 'object' || route.body === null))
      return `${where}: body must be a JSON Schema object`;
    if (route.rawBody === true && route.body !== undefined)
      return `${where}: a rawBody route cannot also declare a JSON body schema`;
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) return `${where}: ${key} is defined twice`;
    seen.add(key);
  }
  return null;
}

async function loadOne(installed: InstalledModule, deps: LoadDeps, apis: ModuleApis): Promise<ApiRoute[]> {
  const { module } = installed;
  const imported = (await import(pathToFileURL(module.routes as string).href)) as { default?: unknown };
  if (typeof imported.default !== 'function')
    throw new Error(`${module.routes} must export default a function (see src/sdk/index.ts)`);
  const definitions = await (imported.default as ModuleRoutes)({
    knex: deps.knex,
    logger: deps.logger.child({ module: module.name }),
    storageDir: deps.storageDir,
    module: module.name,
    sdk: await apis.sdkFor(module),
  });
  const problem = contractProblem(module.name, definitions, module.manifest.permissions ?? []);
  if (problem !== null) throw new Error(`${module.routes}: ${problem}`);
  // Only the contract's fields are taken: a plain-JavaScript module could add Ward's own route
  // options (`access: 'public'`, say) to a definition, and those must never reach a module route.
  return definitions.map(({ method, path, permission, body, rawBody, summary, handler }) => ({
    method,
    path,
    permission,
    body,
    rawBody,
    summary,
    handler,
    module: module.name,
    fullPath: `${API_PREFIX}/${module.name}${path}`,
  }));
}

export async function loadModuleRoutes(
  modules: readonly InstalledModule[],
  deps: LoadDeps,
): Promise<LoadedRoutes> {
  const routes: ApiRoute[] = [];
  const failures: ModuleFailure[] = [];
  // A module's routes reach the APIs of the installed modules it depends on, each loaded once.
  const apis =
    deps.apis ??
    new ModuleApis({
      modules: new Map(modules.map((installed) => [installed.module.name, installed.module])),
      ...deps,
    });
  for (const installed of modules) {
    if (installed.module.routes === null) continue;
    try {
      routes.push(...(await loadOne(installed, deps, apis)));
    } catch (error) {
      failures.push({ module: installed.module.name, message: (error as Error).message });
      deps.logger.error({ err: error, module: installed.module.name }, 'module routes not mounted');
    }
  }
  return { routes, failures };
}

/** What a module that failed to mount answers: why, and that a fix and a restart bring it back. */
export const failedRoutes = (failure: ModuleFailure): ApiRoute[] =>
  unavailableRoutes(
    failure.module,
    () =>
      new ApiError(
        503,
        'module_unavailable',
        `the routes of module ${failure.module} failed to load: ${failure.message}`,
        'fix the module (the backend log has the details), then restart the backend',
      ),
  );

/** What an inactive module answers: the dependency it lacks and the two ways out, as its row records them. */
export const inactiveRoutes = (inactive: InactiveModule): ApiRoute[] =>
  unavailableRoutes(inactive.module, () => {
    const { message, hint } = inactiveText(inactive);
    return new ApiError(503, 'module_inactive', message, hint);
  });

/** Every method under a module's prefix answers `error()`, to signed-in callers only (the reason may name files). */
function unavailableRoutes(module: string, error: () => ApiError): ApiRoute[] {
  const handler = async (): Promise<void> => {
    throw error();
  };
  return (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).flatMap((method) =>
    [`${API_PREFIX}/${module}`, `${API_PREFIX}/${module}/{*rest}`].map((fullPath) => ({
      method,
      path: fullPath,
      fullPath,
      module,
      permission: null,
      rawBody: true,
      handler,
    })),
  );
}
