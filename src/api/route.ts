/**
 * Every route Ward serves, core or module, is one ApiRoute, compiled here into the same guard
 * chain, so no route can skip authentication, CSRF, its permission or body validation, and the
 * OpenAPI document is generated from the very list that is mounted.
 */
import type { Ajv } from 'ajv';
import type { Knex } from 'knex';
import type { Context, Middleware } from '../http/context.ts';
import { isRefusal, recordRefusal } from './audit-refusals.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { authenticate, requirePermission } from './auth-middleware.ts';
import { hasBody, readJsonBody } from './body.ts';
import type { RouteDefinition } from '../sdk/index.ts';
import { compileBody, type BodyValidator } from './validation.ts';
import { ApiError } from '../errors/api-error.ts';
import { checkSchema } from '../sdk/schema.ts';

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
  // A module's schema is checked against the meta-schema now, so that a broken one is reported at
  // start-up (its module is then not mounted). Every schema compiles on its route's first call:
  // compiling the modules' schemas was the largest part of a start's own work, and ajv itself
  // need not load for a start at all.
  if (schema !== undefined && route.module !== null) checkSchema(schema);
  let validate: BodyValidator | null = null;
  const accept = (ctx: Context, body: unknown) => {
    if (schema !== undefined) {
      validate ??= compileOnCall(route, schema, deps);
      validate(body);
    }
    // Without a body (every GET) the request side is not even made: it reads undefined as it is.
    if (body !== undefined) ctx.request.body = body;
  };
  // Most requests (every GET) have no body: they are checked at once, without a promise.
  return (ctx: Context) =>
    hasBody(ctx)
      ? readJsonBody(ctx, deps.jsonLimit).then((body) => accept(ctx, body))
      : accept(ctx, undefined);
}

/**
 * What the meta-schema cannot see (an unknown format, a `$ref` that resolves nowhere) fails only
 * here: a module's route then answers 503 with ajv's reason, as a module that failed to mount
 * does, and is compiled again on its next call. Ward's own schemas are tested: a failure is a bug.
 */
function compileOnCall(route: ApiRoute, schema: object, deps: RouteDeps): BodyValidator {
  try {
    return compileBody(deps.ajvFor(route.module), schema);
  } catch (error) {
    if (route.module === null) throw error;
    throw new ApiError(
      503,
      'module_unavailable',
      `the body schema of ${route.method} ${route.fullPath} (module ${route.module}) does not compile: ${(error as Error).message}`,
      'fix the schema in the module, then restart the backend',
      { cause: error },
    );
  }
}

/**
 * One route's guards, body and handler as a single middleware. Steps in a plain loop rather than a
 * middleware chain: every link of a chain costs a dispatch and a promise on every request; and a step
 * that finished at once (the permission check, a request without body) is not awaited, which
 * would cost a turn of the microtask queue each. Not an async function either: its suspension and
 * resumption around the handler cost more than the one `catch` below (about 80 ns a request).
 * Throws when a module's body schema breaks the meta-schema.
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
  /** The steps from `from` on, then the handler; waits only for a step that did not finish at once. */
  const run = (ctx: Context, from: number): void | Promise<void> => {
    for (let at = from; at < steps.length; at++) {
      const pending = (steps[at] as Step)(ctx);
      if (pending !== undefined) return pending.then(() => run(ctx, at + 1));
    }
    return handler(ctx);
  };
  const refused = async (ctx: Context, error: unknown): Promise<never> => {
    if (knex !== undefined && isRefusal(error)) await recordRefusal(knex, route, ctx, error);
    throw error;
  };
  return (ctx: Context) => {
    let ran: void | Promise<void>;
    try {
      ran = run(ctx, 0);
    } catch (error) {
      return refused(ctx, error);
    }
    return Promise.resolve(ran).catch((error: unknown) => refused(ctx, error));
  };
}
