/**
 * Who calls each request, recorded by the API's authentication guard and read by Ward's routes and
 * the module SDK (`sdk.http.caller`, `sdk.acting`).
 */
import type { Context } from 'koa';
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
