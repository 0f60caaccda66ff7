/**
 * One router for every route: Ward's own first, then each module's. A module whose routes cannot
 * be compiled (a body schema ajv rejects) is not mounted, like any other contract break; its
 * prefix answers 503 instead, as an inactive module's does. The OpenAPI document lists exactly what
 * was mounted.
 *
 * Each route's guards and handler are compiled into one middleware when it is mounted, and a
 * request calls it directly after one lookup in the route table (route-table.ts): no chain is built
 * or composed per request. A path no route answers goes on to the web frontend; what is left
 * unanswered then gets the router's 405 (the path exists for other methods), 501 (a method Ward
 * implements nowhere) or, for OPTIONS, the methods it allows.
 */
import type { Context, Middleware, Next } from '../http/context.ts';
import type { Logger } from '../logger.ts';
import { VERSION } from '../version.ts';
import type { InactiveModule } from '../planner/inactive.ts';
import { failedRoutes, inactiveRoutes, type LoadedRoutes, type ModuleFailure } from './mount-modules.ts';
import { openApiDocument } from './openapi.ts';
import { compileRoute, type ApiRoute, type RouteDeps } from './route.ts';
import { routeTable, type RouteTable, type TableRoute } from './route-table.ts';
import { openApiRoutes } from './routes/openapi.ts';

/** Every method some route may have: others answer 501 (HEAD and OPTIONS are answered for GET routes and by the router). */
const IMPLEMENTED: ReadonlySet<string> = new Set([
  'HEAD',
  'OPTIONS',
  'GET',
  'PUT',
  'PATCH',
  'POST',
  'DELETE',
]);

export interface BuiltRouter {
  /** The routes, then the 405, 501 and OPTIONS answers for what no route and no later middleware answered. */
  router: Middleware;
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
  const table: TableRoute<Middleware>[] = [];
  const register = (route: ApiRoute, middleware: Middleware) =>
    table.push({ method: route.method, template: route.fullPath, value: middleware });
  const mounted: ApiRoute[] = [];
  const mount = (routes: readonly ApiRoute[]) => {
    // All compiled before any is registered: a module whose schema fails is mounted not at all.
    const compiled = routes.map((route) => compileRoute(route, deps));
    routes.forEach((route, index) => register(route, compiled[index] as Middleware));
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
    register(route, compileRoute(route, deps));
  let openapi: object = {};
  mount(openApiRoutes(() => openapi));
  openapi = openApiDocument(mounted, VERSION);
  return { router: routing(routeTable(table)), openapi, failures };
}

function routing(table: RouteTable<Middleware>): Middleware {
  return (ctx: Context, next: Next) => {
    const found = table.find(ctx.method, ctx.path);
    if (found.route !== null) {
      ctx.params = found.params;
      ctx.matchedRoute = found.route.template;
      return found.route.value(ctx, next);
    }
    return next().then(() => answerUnrouted(ctx, found.allowed));
  };
}

/** What the router answers for a request nothing else answered; `allowed`: the methods its path has routes for. */
function answerUnrouted(ctx: Context, allowed: readonly string[]): void {
  if (ctx.status !== 404) return;
  if (!IMPLEMENTED.has(ctx.method)) {
    ctx.status = 501;
    ctx.set('Allow', allowed.join(', '));
  } else if (ctx.method === 'OPTIONS' && allowed.length > 0) {
    ctx.status = 200;
    ctx.body = '';
    ctx.set('Allow', allowed.join(', '));
  } else if (allowed.length > 0 && !allowed.includes(ctx.method)) {
    ctx.status = 405;
    ctx.set('Allow', allowed.join(', '));
  }
}
