/**
 * Refusals go in the audit trail: a request answered 403 (a permission, CSRF, a password change
 * required first) or 409 (a conflict: a duplicate, a busy practitioner) leaves an `outcome:
 * refused` row naming the caller, the route and the error's code. Recorded on their own (the
 * change, if any, was rolled back) and awaited, so the answer goes out once its row is written.
 * Only the route's pattern and the path's id are kept, never the query string, which can hold a
 * name someone searched for.
 */
import type { Knex } from 'knex';
import type { Context } from '../http/context.ts';
import { appendAlone } from '../audit/record.ts';
import { callerActor } from '../auth/request-caller.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ApiRoute } from './route.ts';

const REFUSED = new Set([403, 409]);

const ACTIONS: Record<string, string> = {
  GET: 'record.read',
  POST: 'record.create',
  PUT: 'record.update',
  PATCH: 'record.update',
  DELETE: 'record.delete',
};

export function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && REFUSED.has(error.status);
}

function actorOf(ctx: Context): string {
  try {
    return callerActor(ctx);
  } catch {
    // Refused before the credential was checked (CSRF): nobody known acts.
    return 'anonymous';
  }
}

export function recordRefusal(knex: Knex, route: ApiRoute, ctx: Context, error: ApiError): Promise<void> {
  const params = ctx.params as Record<string, string | undefined> | undefined;
  return appendAlone(knex, [
    {
      actor: actorOf(ctx),
      action: ACTIONS[route.method] ?? 'record.read',
      module: route.module,
      recordId: params?.id ?? null,
      patientId: params?.patientId ?? null,
      client: ctx.ip,
      outcome: 'refused',
      detail: { status: error.status, code: error.code, method: route.method, route: route.fullPath },
    },
  ]);
}
