/**
 * The record of who calls a request holds the raw credential: it is kept where a module handler,
 * which shares the request's ctx, cannot find it by walking the ctx's properties.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import test from 'ava';
import { WardContext } from '../../src/http/context.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { callerOf, rememberCaller, type CallerState } from '../../src/auth/request-caller.ts';

function context() {
  const req = new IncomingMessage(new Socket());
  req.url = '/api/v1/somewhere';
  return new WardContext(req, new ServerResponse(req), { proxy: false });
}

const caller = (secret: string, userId = 4): CallerState => ({
  principal: { userId, username: 'ada' } as Principal,
  source: 'bearer',
  secret,
});

/** Every value reachable from `root` through its own properties, string- or symbol-keyed. */
function reachable(root: object): unknown[] {
  const seen = new Set<unknown>();
  const walk = (value: unknown) => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) {
      seen.add(value);
      return;
    }
    seen.add(value);
    for (const key of Reflect.ownKeys(value as object)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor !== undefined && 'value' in descriptor) walk(descriptor.value);
    }
  };
  walk(root);
  return [...seen];
}

test('the caller recorded on a ctx is read back from it, and a second record replaces the first', (t) => {
  const ctx = context();
  rememberCaller(ctx, caller('ward_t_first'));
  t.is(callerOf(ctx).secret, 'ward_t_first');
  rememberCaller(ctx, caller('ward_t_second', 5));
  t.is(callerOf(ctx).secret, 'ward_t_second');
  t.is(callerOf(ctx).principal.userId, 5);
  t.throws(() => callerOf(context()), { message: '/api/v1/somewhere is not behind authenticate()' });
});

test('no property of the ctx, named or symbol, leads to the caller or its secret', (t) => {
  const ctx = context();
  const recorded = caller('ward_t_hidden');
  rememberCaller(ctx, recorded);
  const values = reachable(ctx);
  t.false(values.includes(recorded));
  t.false(values.includes('ward_t_hidden'));
  t.false(JSON.stringify(ctx).includes('ward_t_hidden'));
});
