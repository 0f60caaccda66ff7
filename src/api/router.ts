/**
 * One router for every route: Ward's own first, then each module's. A module whose routes cannot
 * be compiled (a body schema ajv rejects) is not mounted, like any other contract break; its
 * prefix answers 503 instead, as an inactive module's does. The OpenAPI document lists exactly what
 * was mounted.
 */
import { createRequire } from 'node:module';
import type RouterModule from '@koa/router';
import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';
import { VERSION } from '../version.ts';
import type { InactiveModule } from '../planner/inactive.ts';
import { failedRoutes, inactiveRoutes, type LoadedRoutes, type ModuleFailure } from './mount-modules.ts';
import { openApiDocument } from './openapi.ts';
import { compileRoute, register, type ApiRoute, type RouteDeps } from './route.ts';
import { openApiRoutes } from './routes/openapi.ts';

// The CommonJS build, on purpose: the ES module build imports `http` as an ES module, and Node
// fills that namespace by reading every export of `http`, which loads its bundled fetch (undici),
// 10-30 ms of start-up spent on nothing Ward uses.
const Router = createRequire(import.meta.url)('@koa/router') as typeof RouterModule;
type Router = RouterModule;

export interface BuiltRouter {
  router: Router;
  openapi: object;
  failures: ModuleFailure[];
}

export function buildRouter(
  core: readonly ApiRoute[],
  modules: LoadedRoutes,
  deps: RouteDeps,
  logger: Logger,
  inactive: readonly InactiveModule[] = [],
): BuiltRouter {
  const router = new Router();
  const mounted: ApiRoute[] = [];
  const mount = (routes: readonly ApiRoute[]) => {
    // All compiled before any is registered: a module whose schema fails is mounted not at all.
    const compiled = routes.map((route) => compileRoute(route, deps));
    routes.forEach((route, index) => register(router, route, compiled[index] as Middleware));
    mounted.push(...routes);
  };
  mount(core);
  const failures = [...modules.failures];
  for (const module of new Set(modules.routes.map((route) => route.module as string))) {
    try {
      mount(modules.routes.filter((route) => route.module === module));
    } catch (error) {
      logger.error({ err: error, module }, 'module routes not mounted');
      failures.push({ module, message: `a body schema does not compile: ${(error as Error).message}` });
    }
  }
  for (const route of [...failures.flatMap(failedRoutes), ...inactive.flatMap(inactiveRoutes)])
    register(router, route, compileRoute(route, deps));
  let openapi: object = {};
  mount(openApiRoutes(() => openapi));
  openapi = openApiDocument(mounted, VERSION);
  return { router, openapi, failures };
}
