/**
 * Draining a plain node:http server the way a backend's graceful stop does (src/server/drain.ts): kept-alive
 * clients are told to go, answers in progress arrive whole, and nothing waits for a grace period.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { serve } from '../../src/api/respond.ts';
import { drainable } from '../../src/server/drain.ts';

const SIZE = 32 * 1024 * 1024;

/** `listener`, drainable, on a server of its own, and an agent that keeps one connection alive. */
async function listening(t: ExecutionContext, listener: http.RequestListener) {
  const tracked = drainable(listener);
  const server = http.createServer(tracked.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { server, port, agent, drain: () => tracked.drain(server) };
}

/** A server whose /big answers SIZE bytes after 200 ms (headers first with ?headers-first). */
async function server(t: ExecutionContext) {
  const { server, port, agent, drain } = await listening(t, (request, response) => {
    if (request.url === '/small') return void response.end('ok');
    response.setHeader('Content-Length', SIZE);
    if (request.url?.includes('headers-first')) response.flushHeaders();
    setTimeout(() => response.end(Buffer.alloc(SIZE, 1)), 200);
  });
  /** Reads slowly: pauses half a second before taking the body. */
  const get = (pathname: string) =>
    new Promise<{ bytes: number; connection: string | undefined }>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port, path: pathname, agent }, (response) => {
          let bytes = 0;
          response.pause();
          setTimeout(() => response.resume(), 500);
          response.on('data', (chunk: Buffer) => (bytes += chunk.length));
          response.on('end', () => resolve({ bytes, connection: response.headers.connection }));
          response.on('error', reject);
        })
        .on('error', reject),
    );
  const stop = () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    drain();
    return closed;
  };
  return { get, drain, stop };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an answer still being prepared says Connection: close, arrives whole, and the server then closes', async (t) => {
  const { get, stop } = await server(t);
  const big = get('/big');
  await pause(50);
  const closed = stop();
  t.deepEqual(await big, { bytes: SIZE, connection: 'close' });
  await closed;
  t.pass();
});

test('an answer that already promised keep-alive arrives whole, then its connection is closed', async (t) => {
  const { get, stop } = await server(t);
  const big = get('/big?headers-first');
  await pause(50);
  const closed = stop();
  t.deepEqual(await big, { bytes: SIZE, connection: 'keep-alive' });
  await closed;
  t.pass();
});

test('the connection of an answer in progress at the stop is not reused: the next request finds the server gone', async (t) => {
  const { get, stop } = await server(t);
  const big = get('/big');
  await pause(50);
  const closed = stop();
  await big;
  // The agent's one connection was closed with that answer: a new one is refused.
  await t.throwsAsync(get('/small'), { code: 'ECONNREFUSED' });
  await closed;
});

test('a request that comes while draining, its handler sending the headers at once, says Connection: close and arrives whole', async (t) => {
  const { get, drain, stop } = await server(t);
  // The agent keeps this connection for the next request, which comes after the drain began.
  await get('/small');
  drain();
  t.deepEqual(await get('/big?headers-first'), { bytes: SIZE, connection: 'close' });
  await stop();
  t.pass();
});

test('an answer that fails while draining is a 500 that still says Connection: close', async (t) => {
  const { port, agent, drain } = await listening(
    t,
    serve(
      async (ctx) => {
        // A BigInt is no JSON: writing the answer fails, and Ward answers 500 instead.
        ctx.body = ctx.path === '/fails' ? { count: 1n } : { ok: true };
      },
      { proxy: false },
      () => undefined,
    ),
  );
  const get = (pathname: string) =>
    new Promise<{ status: number | undefined; connection: string | undefined }>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port, path: pathname, agent }, (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode, connection: response.headers.connection }),
          );
        })
        .on('error', reject),
    );
  // The agent keeps this connection for the next request, which comes after the drain began.
  t.deepEqual(await get('/fine'), { status: 200, connection: 'keep-alive' });
  drain();
  t.deepEqual(await get('/fails'), { status: 500, connection: 'close' });
});
