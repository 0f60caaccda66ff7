/**
 * Every route Ward serves, core or module, is one ApiRoute, compiled here into the same guard
 * chain, so no route can skip authentication, CSRF, its permission or body validation, and the
 * OpenAPI document is generated from the very list that is mounted.
 */
import type Router from '@koa/router';
import type { Ajv } from 'ajv';
import type { Knex } from 'knex';
import type { Context, Middleware } from 'koa';
import { isRefusal, recordRefusal } from './audit-refusals.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { authenticate, requirePermission } from './auth-middleware.ts';
import { readJsonBody } from './body.ts';
import type { RouteDefinition } from '../sdk/index.ts';
import { compileBody } from './validation.ts';

export interface ApiRoute extends RouteDefinition {
  /** The path the router matches: `/api/v1/<module>` + the definition's path, for module routes. */
  fullPath: string;
  /** The module that defined it, or null for Ward's own routes. */
  module: string | null;
  /** `public`: no credential needed (sign-in, the OpenAPI document). Default: a signed-in caller. */
  access?: 'public' | 'signed_in';
  /** Ward's own routes only: also open to a user who must change their password first (/me, sign-out, the change). */
  beforePasswordChange?: boolean;
  /** Ward's own routes only: also open to a user who must set up two-factor sign-in first. */
  beforeTwoFactorEnrolment?: boolean;
  /** For the OpenAPI document: the success status and its JSON body schema. */
  response?: { status: number; description: string; schema?: object };
  /** For the OpenAPI document: the query parameters the handler reads (it checks them itself). */
  query?: QueryParameter[];
}

export interface QueryParameter {
  name: string;
  description: string;
  schema: object;
}

export interface RouteDeps {
  auth: Authenticator | null;
  /** Where refusals (403, 409) are recorded in the audit trail; none without a database. */
  knex?: Knex;
  /** The ajv that compiles `module`'s body schemas (null: Ward's own), one per module: see ajvPerModule. */
  ajvFor: (module: string | null) => Ajv;
  jsonLimit: number;
}

/** One step of a route: resolves to go on, throws (an ApiError) to answer instead. */
type Step = (ctx: Context) => void | Promise<void>;

function bodyStep(route: ApiRoute, deps: RouteDeps): Step {
  const schema = route.body;
  // A module's schema compiles now, so that one that does not is reported at start-up; Ward's own
  // are fixed and tested, and compile on first use to keep that work off the start-up path.
  const ajv = () => deps.ajvFor(route.module);
  let validate = schema === undefined || route.module === null ? null : compileBody(ajv(), schema);
  return async (ctx: Context) => {
    const body = await readJsonBody(ctx, deps.jsonLimit);
    if (schema !== undefined) {
      validate ??= compileBody(ajv(), schema);
      validate(body);
    }
    ctx.request.body = body;
  };
}

/**
 * One route's guards, body and handler as a single middleware. Steps in a plain loop rather than a
 * Koa chain: every link of a chain costs a dispatch and a promise on every request. Throws when
 * its body schema does not compile.
 */
export function compileRoute(route: ApiRoute, deps: RouteDeps): Middleware {
  const steps: Step[] = [];
  if (route.access !== 'public')
    steps.push(
      authenticate(deps.auth, {
        beforePasswordChange: route.module === null && route.beforePasswordChange === true,
        beforeTwoFactorEnrolment: route.module === null && route.beforeTwoFactorEnrolment === true,
      }),
    );
  if (route.permission !== null) steps.push(requirePermission(route.permission));
  if (route.rawBody !== true) steps.push(bodyStep(route, deps));
  const handler = route.handler;
  const knex = deps.knex;
  return async (ctx: Context) => {
    try {
      for (const step of steps) await step(ctx);
      await handler(ctx);
    } catch (error) {
      if (knex !== undefined && isRefusal(error)) await recordRefusal(knex, route, ctx, error);
      throw error;
    }
  };
}

export function register(router: Router, route: ApiRoute, middleware: Middleware): void {
  router.register(route.fullPath, [route.method], [middleware]);
}
