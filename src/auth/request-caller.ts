/**
 * Who calls each request, recorded by the API's authentication guard and read by Ward's routes and
 * the module SDK (`sdk.http.caller`, `sdk.acting`).
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { acting, userActor, type Acting, type Actor } from '../db/acting.ts';
import type { Principal } from './principal.ts';

export interface CallerState {
  principal: Principal;
  source: 'cookie' | 'bearer';
  secret: string;
}

/**
 * Callers by request. Not on `ctx.state`: module handlers get the same ctx, and the state holds the
 * raw credential (`secret`). Modules see the caller only through `sdk.http.caller`.
 */
const callers = new WeakMap<Context, CallerState>();

/** Records who calls `ctx`; authenticate() does, and tests standing in for it. */
export function rememberCaller(ctx: Context, caller: CallerState): void {
  callers.set(ctx, caller);
}

/** The caller of an authenticated route. */
export function callerOf(ctx: Context): CallerState {
  const caller = callers.get(ctx);
  if (caller === undefined) throw new Error(`${ctx.path} is not behind authenticate()`);
  return caller;
}

/** Who acts in an authenticated request: its user, through its session or its API token. */
export function callerActor(ctx: Context): Actor {
  const { principal } = callerOf(ctx);
  const { credential } = principal;
  return userActor(
    principal.userId,
    credential.kind === 'session'
      ? { kind: 'session', ref: credential.ref }
      : { kind: 'token', id: credential.id },
  );
}

/** The acting context of the caller of `ctx` on the pool `knex`: what Ward's own routes write in. */
export const callerActing = (knex: Knex, ctx: Context): Acting => acting(knex, callerActor(ctx));
