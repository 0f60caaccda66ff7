/**
 * The contract between Ward and a module's `routes.ts` (or `routes.js`): the file's default export
 * receives what a route may use and returns its routes, each declaring the permission that guards
 * it. Ward mounts them at `/api/v1/<module>/` and checks the permission before the handler runs,
 * so a module cannot forget a guard; it validates `body` (a JSON Schema) before the handler too.
 *
 * In a handler, `ctx.request.body` is the parsed, validated JSON body (undefined when none was
 * sent) and `ctx.state.caller.principal` says who calls: user id, username, roles, permissions.
 * Errors thrown as `ctx.throw(status, message)` or WardErrors reach the client in Ward's one error
 * shape, `{"error": {"code", "message", "hint"}}`; anything else becomes a 500 that reveals nothing.
 */
import type { Knex } from 'knex';
import type { Context } from 'koa';
import type { Logger } from '../logger.ts';

declare module 'koa' {
  interface Request {
    /** The JSON body, parsed and validated against the route's `body` schema by Ward. */
    body?: unknown;
  }
}

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ModuleRouteContext {
  /** The connection pool. */
  knex: Knex;
  logger: Logger;
  /** Ward's storage directory; modules keep their files under `<storageDir>/<module>/`. */
  storageDir: string;
  /** The module's own name, for namespacing files and permissions. */
  module: string;
}

export interface RouteDefinition {
  method: RouteMethod;
  /** Relative to the module's mount point, koa-router syntax: `/jobs/:id/preview`. */
  path: string;
  /** Permission the caller needs, `<module>.<resource>.<action>`; `null` only for routes any signed-in user may call. */
  permission: string | null;
  /** JSON Schema of the JSON request body; a body that does not match gets 422 before the handler. */
  body?: object;
  /** Raw body (uploads): the handler reads `ctx.req` itself as a stream; no JSON parsing happens. */
  rawBody?: boolean;
  summary?: string;
  handler: (ctx: Context) => Promise<void>;
}

export type ModuleRoutes = (context: ModuleRouteContext) => RouteDefinition[] | Promise<RouteDefinition[]>;
