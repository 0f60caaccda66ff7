import { createServer } from 'node:http';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { requestContext, requestIdOf } from '../../src/api/request-context.ts';
import { serve } from '../../src/api/respond.ts';
import type { Context } from '../../src/http/context.ts';
import { requestScope, silentLogger } from '../../src/logger.ts';

const WELL_FORMED = /^[A-Za-z0-9._:+=/-]{1,128}$/;

/** `handler` inside the request context, on a server of its own closed when the test ends; its port. */
async function contextServer(t: ExecutionContext, handler: (ctx: Context) => Promise<void>): Promise<number> {
  const context = requestContext({ logger: silentLogger, observe: null });
  const listener = serve(
    (ctx) => context(ctx, () => handler(ctx)),
    { proxy: false },
    () => undefined,
  );
  const server = createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

test('a well-formed incoming request id is kept: UUIDs, nginx ids, tracer ids', (t) => {
  for (const id of [
    '0b7c4d7e-9a43-4c8e-b6b5-2f7c7a0c1e55',
    '5f1c2a7d9e0b4c3a8f6e1d2c3b4a5968',
    'Root=1-67891233-abcdef012345678912345678',
    'a',
    'x'.repeat(128),
  ])
    t.is(
      requestIdOf(id, () => 'fresh'),
      id,
    );
});

test('a missing, empty, too long or ill-formed one is replaced by a fresh id', (t) => {
  for (const id of [undefined, '', 'x'.repeat(129), 'two words', 'line\nbreak', '"quoted"', 'ümlaut', 'a,b'])
    t.is(
      requestIdOf(id, () => 'fresh'),
      'fresh',
      JSON.stringify(id),
    );
  t.regex(requestIdOf(undefined), /^[0-9a-f-]{36}$/);
});

test('whatever a client sends, the id used is well-formed: it can break neither a header nor a log line', (t) => {
  fc.assert(
    fc.property(fc.option(fc.string({ maxLength: 200, unit: 'binary' }), { nil: undefined }), (given) => {
      const id = requestIdOf(given);
      return WELL_FORMED.test(id) && (id === given || given === undefined || !WELL_FORMED.test(given));
    }),
  );
  t.pass();
});

test('a request target that is no URL is a 400 in the error shape, and the server goes on serving', async (t) => {
  const port = await contextServer(t, async (ctx) => {
    ctx.body = { path: ctx.path };
  });
  // Node's parser lets this request line through; reading it as a URL throws.
  const socket = connect(port, '127.0.0.1');
  socket.end('GET http://[::1/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  let raw = '';
  for await (const chunk of socket) raw += String(chunk);
  t.regex(raw, /^HTTP\/1\.1 400 /);
  t.regex(raw, /x-request-id: /i);
  t.regex(raw, /"code":"bad_request"/);
  const next = await fetch(`http://127.0.0.1:${port}/fine`);
  t.deepEqual(await next.json(), { path: '/fine' });
});

test("work a request starts knows that request's id (its log lines carry it), however requests interleave", async (t) => {
  const port = await contextServer(t, async (ctx) => {
    // Later than it began, after the other requests' work has run in between.
    await new Promise((resolve) => setTimeout(resolve, Number(ctx.query.wait)));
    await Promise.resolve();
    ctx.body = { seen: requestScope.getStore()?.requestId };
  });
  const ids = Array.from({ length: 20 }, (_, index) => `request-${index}`);
  const answers = await Promise.all(
    ids.map((id, index) =>
      fetch(`http://127.0.0.1:${port}/?wait=${(index * 7) % 20}`, { headers: { 'X-Request-Id': id } }).then(
        (response) => response.json() as Promise<{ seen: string }>,
      ),
    ),
  );
  t.deepEqual(
    answers.map((answer) => answer.seen),
    ids,
  );
});
