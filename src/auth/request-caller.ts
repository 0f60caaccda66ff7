/**
 * Who calls each request, recorded by the API's authentication guard and read by Ward's routes and
 * the module SDK (`sdk.http.caller`, `sdk.acting`).
 */
import type { Knex } from 'knex';
import type { Context } from '../http/context.ts';
import type { By } from '../audit/record.ts';
import { acting, userActor, type Acting, type Actor } from '../db/acting.ts';
import type { Principal } from './principal.ts';

export interface CallerState {
  principal: Principal;
  source: 'cookie' | 'bearer';
  secret: string;
}

/**
 * Lends a private field to an object it did not create: a base class constructor that returns
 * another object makes `super()` hand that object to the subclass, which then installs its own
 * private fields on it.
 */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- its constructor is its job
class Lend {
  constructor(target: object) {
    return target;
  }
}

/**
 * Callers by request, in a private field on the request's ctx. Not on `ctx.state`, nor in any
 * property: module handlers get the same ctx, and the caller holds the raw credential (`secret`);
 * modules see the caller only through `sdk.http.caller`. A private field rather than a WeakMap
 * keyed by ctx: every authenticated request records its caller, and a WeakMap entry (an identity
 * hash and an ephemeron for the garbage collector) cost each request about 2 µs, a fifth of what
 * Ward adds to a permission-checked GET; a private field costs what any property does.
 */
class CallerSlot extends Lend {
  #caller: CallerState;

  private constructor(ctx: Context, caller: CallerState) {
    super(ctx);
    this.#caller = caller;
  }

  static set(ctx: Context, caller: CallerState): void {
    if (#caller in ctx) (ctx as unknown as CallerSlot).#caller = caller;
    else new CallerSlot(ctx, caller);
  }

  static get(ctx: Context): CallerState | undefined {
    return #caller in ctx ? (ctx as unknown as CallerSlot).#caller : undefined;
  }
}

/** Records who calls `ctx`; authenticate() does, and tests standing in for it. */
export function rememberCaller(ctx: Context, caller: CallerState): void {
  CallerSlot.set(ctx, caller);
}

/** The caller of an authenticated route. */
export function callerOf(ctx: Context): CallerState {
  const caller = CallerSlot.get(ctx);
  if (caller === undefined) throw new Error(`${ctx.path} is not behind authenticate()`);
  return caller;
}

/** The actor of an authenticated request: `user:<id>:session:<ref>` or `user:<id>:token:<id>`. */
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

/** The acting context of an authenticated request's caller, with the client's address. */
export function requestActing(knex: Knex, ctx: Context): Acting {
  return acting(knex, callerActor(ctx), ctx.ip);
}

/** Whom a core write made for this request is recorded as. */
export function callerBy(ctx: Context): By {
  return { actor: callerActor(ctx), client: ctx.ip };
}
