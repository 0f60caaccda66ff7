/**
 * Ward's request context and how its answer is written, on a real node:http server: what handlers
 * set (body of each kind, status, type, headers) reaches the client as it did on Koa, and what the
 * context reads of the request (path, query, headers, address, protocol, cookies) is what was sent.
 */
import http, { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import mimeTypes from 'mime-types';
import type { Context } from '../../src/http/context.ts';
import { contentTypeOf } from '../../src/http/context.ts';
import { serve } from '../../src/api/respond.ts';
import { OBJECT_MEMBER_NAMES } from '../helpers/object-members.ts';

interface Served {
  base: string;
  failures: unknown[];
}

/** `handler` as the whole middleware on a server of its own, closed when the test ends. */
async function served(
  t: ExecutionContext,
  handler: (ctx: Context) => void | Promise<void>,
  proxy = false,
): Promise<Served> {
  const failures: unknown[] = [];
  const listener = serve(
    async (ctx) => {
      await handler(ctx);
    },
    { proxy },
    (error) => failures.push(error),
  );
  const server = createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, failures };
}

test('an object body is JSON with its length; setting a body makes the status 200 unless one was set', async (t) => {
  const { base } = await served(t, (ctx) => {
    if (ctx.path === '/created') ctx.status = 201;
    ctx.body = { ok: true, name: 'Zoë' };
  });
  const answer = await fetch(`${base}/plain`);
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(answer.headers.get('content-length'), String(Buffer.byteLength('{"ok":true,"name":"Zoë"}')));
  t.deepEqual(await answer.json(), { ok: true, name: 'Zoë' });
  t.is((await fetch(`${base}/created`)).status, 201);
});

test('a string is text, or HTML when it starts with a tag; a Buffer is binary; a type set first is kept', async (t) => {
  const { base } = await served(t, (ctx) => {
    if (ctx.path === '/text') ctx.body = 'hello';
    else if (ctx.path === '/html') ctx.body = '  <p>hi</p>';
    else if (ctx.path === '/bytes') ctx.body = Buffer.from([1, 2, 3]);
    else {
      ctx.type = 'csv';
      ctx.body = 'a,b\n';
    }
  });
  const text = await fetch(`${base}/text`);
  t.is(text.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.is(await text.text(), 'hello');
  t.is((await fetch(`${base}/html`)).headers.get('content-type'), 'text/html; charset=utf-8');
  const bytes = await fetch(`${base}/bytes`);
  t.is(bytes.headers.get('content-type'), 'application/octet-stream');
  t.deepEqual([...new Uint8Array(await bytes.arrayBuffer())], [1, 2, 3]);
  const csv = await fetch(`${base}/csv`);
  t.is(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.is(await csv.text(), 'a,b\n');
});

test('nothing set is a 404 with its status text; null is an empty 204; 204 and 304 send no body', async (t) => {
  const { base } = await served(t, (ctx) => {
    if (ctx.path === '/null') ctx.body = null;
    else if (ctx.path === '/accepted') ctx.status = 202;
    else if (ctx.path === '/not-modified') {
      ctx.body = { dropped: true };
      ctx.status = 304;
    }
  });
  const nothing = await fetch(`${base}/nothing`);
  t.is(nothing.status, 404);
  t.is(await nothing.text(), 'Not Found');
  const empty = await fetch(`${base}/null`);
  t.is(empty.status, 204);
  t.is(await empty.text(), '');
  const accepted = await fetch(`${base}/accepted`);
  t.is(accepted.status, 202);
  t.is(await accepted.text(), 'Accepted');
  const notModified = await fetch(`${base}/not-modified`);
  t.is(notModified.status, 304);
  t.is(await notModified.text(), '');
});

test('HEAD sends the headers of the answer with the length its body would have had, and no body', async (t) => {
  let streamClosed = false;
  const { base } = await served(t, (ctx) => {
    if (ctx.path === '/stream') {
      const stream = Readable.from(['never sent']);
      stream.once('close', () => (streamClosed = true));
      ctx.body = stream;
    } else ctx.body = { a: 1 };
  });
  const head = await fetch(`${base}/json`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-length'), '7');
  t.is(await head.text(), '');
  const stream = await fetch(`${base}/stream`, { method: 'HEAD' });
  t.is(stream.status, 200);
  t.is(await stream.text(), '');
  t.true(streamClosed, 'the unsent stream is closed');
});

test('a stream is piped to the client; one replaced by another body is closed', async (t) => {
  let replacedClosed = false;
  const { base } = await served(t, (ctx) => {
    if (ctx.path === '/replaced') {
      const replaced = Readable.from(['old']);
      replaced.once('close', () => (replacedClosed = true));
      ctx.body = replaced;
      ctx.body = { instead: true };
      return;
    }
    ctx.attachment('export.ndjson');
    ctx.body = Readable.from(['{"a":1}\n', '{"a":2}\n']);
  });
  const streamed = await fetch(`${base}/export`);
  t.is(streamed.headers.get('content-disposition'), 'attachment; filename="export.ndjson"');
  t.is(await streamed.text(), '{"a":1}\n{"a":2}\n');
  t.deepEqual(await (await fetch(`${base}/replaced`)).json(), { instead: true });
  t.true(replacedClosed);
});

test('an answer that cannot be written is a 500 in the error shape, reported, keeping the request id', async (t) => {
  const { base, failures } = await served(t, (ctx) => {
    ctx.set('X-Request-Id', 'req-1');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = { count: 1n };
  });
  const answer = await fetch(`${base}/`);
  t.is(answer.status, 500);
  t.is(answer.headers.get('x-request-id'), 'req-1');
  t.is(answer.headers.get('cache-control'), 'no-store');
  t.like(await answer.json(), { error: { code: 'internal_error' } });
  t.is(failures.length, 1);
  t.true(failures[0] instanceof TypeError);
});

test('ctx.throw raises an HTTP error with its status and, for a 4xx, its message', async (t) => {
  const { base } = await served(t, (ctx) => {
    try {
      ctx.throw(404, 'no such job');
    } catch (error) {
      const { status, expose, message } = error as { status: number; expose: boolean; message: string };
      ctx.body = { status, expose, message };
    }
  });
  t.deepEqual(await (await fetch(`${base}/`)).json(), { status: 404, expose: true, message: 'no such job' });
});

test('the request: method, path without the query, the query parsed as Koa did, headers, the request side', async (t) => {
  const { base } = await served(t, async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    ctx.body = {
      method: ctx.method,
      path: ctx.path,
      url: ctx.url,
      querystring: ctx.querystring,
      query: ctx.query,
      proto: Object.getPrototypeOf(ctx.query) === Object.prototype,
      header: ctx.get('X-Thing'),
      missing: ctx.get('X-Missing'),
      referrer: ctx.get('Referrer'),
      length: ctx.request.length ?? null,
      type: ctx.request.type,
      charset: ctx.request.charset,
      json: ctx.request.is('application/json', 'application/*+json'),
      body: Buffer.concat(chunks).toString(),
    };
  });
  const answer = await fetch(`${base}/a/b%20c?x=1&x=2&y=&__proto__=p&z=%C3%A9`, {
    method: 'POST',
    headers: {
      'X-Thing': 'thing',
      Referer: 'http://elsewhere/',
      'Content-Type': 'application/json; charset=UTF-8',
    },
    body: '{"a":1}',
  });
  t.deepEqual(await answer.json(), {
    method: 'POST',
    path: '/a/b%20c',
    url: '/a/b%20c?x=1&x=2&y=&__proto__=p&z=%C3%A9',
    querystring: 'x=1&x=2&y=&__proto__=p&z=%C3%A9',
    query: { x: ['1', '2'], y: '', ['__proto__']: 'p', z: 'é' },
    proto: true,
    header: 'thing',
    missing: '',
    referrer: 'http://elsewhere/',
    length: 7,
    type: 'application/json',
    charset: 'UTF-8',
    json: 'application/json',
    body: '{"a":1}',
  });
});

test("the client's address and protocol come from the proxy's headers only when the proxy is trusted", async (t) => {
  const report = (ctx: Context) => {
    ctx.body = { ip: ctx.ip, secure: ctx.secure, protocol: ctx.protocol };
  };
  const headers = { 'X-Forwarded-For': '6.6.6.6, 10.0.0.7', 'X-Forwarded-Proto': 'HTTPS, http' };
  const trusted = await served(t, report, true);
  t.deepEqual(await (await fetch(trusted.base, { headers })).json(), {
    ip: '10.0.0.7',
    secure: true,
    protocol: 'https',
  });
  t.deepEqual(await (await fetch(trusted.base)).json(), { ip: '127.0.0.1', secure: false, protocol: 'http' });
  const direct = await served(t, report, false);
  t.deepEqual(await (await fetch(direct.base, { headers })).json(), {
    ip: '127.0.0.1',
    secure: false,
    protocol: 'http',
  });
});

test('cookies are read from the request and set on the answer; a Secure one only over HTTPS', async (t) => {
  const { base } = await served(
    t,
    (ctx) => {
      ctx.cookies.set('ward_session', 'new', {
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.secure,
        path: '/',
      });
      ctx.body = { had: ctx.cookies.get('ward_session') ?? null };
    },
    true,
  );
  const plain = await fetch(base, { headers: { Cookie: 'ward_session=old' } });
  t.deepEqual(await plain.json(), { had: 'old' });
  t.is(plain.headers.get('set-cookie'), 'ward_session=new; path=/; samesite=strict; httponly');
  const secure = await fetch(base, { headers: { 'X-Forwarded-Proto': 'https' } });
  t.is(secure.headers.get('set-cookie'), 'ward_session=new; path=/; samesite=strict; secure; httponly');
});

test("fresh compares the client's validators with the answer's, for GET and HEAD with 2xx only", async (t) => {
  const { base } = await served(t, (ctx) => {
    ctx.status = 200;
    ctx.set('ETag', 'W/"abc"');
    ctx.body = { fresh: ctx.fresh };
  });
  // node:http rather than fetch, which sends Cache-Control: no-cache with a conditional request.
  const ask = (method: string, headers: Record<string, string>) =>
    new Promise<boolean>((resolve, reject) => {
      const request = http.request(base, { method, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve((JSON.parse(text) as { fresh: boolean }).fresh));
      });
      request.on('error', reject);
      request.end();
    });
  t.true(await ask('GET', { 'If-None-Match': 'W/"abc"' }));
  t.false(await ask('GET', { 'If-None-Match': 'W/"other"' }));
  t.false(await ask('GET', {}));
  t.false(await ask('GET', { 'If-None-Match': 'W/"abc"', 'Cache-Control': 'no-cache' }));
  t.false(await ask('POST', { 'If-None-Match': 'W/"abc"' }));
});

test('a type given as a short name, an extension or a MIME type resolves as the MIME database does', (t) => {
  const named = fc.constantFrom('json', 'text', 'html', 'bin', 'csv', 'ndjson', 'pdf', 'png', 'nope');
  // Names of Object.prototype's members once took a lookup table's inherited member for a type.
  const inherited = fc.constantFrom(...OBJECT_MEMBER_NAMES);
  const given = fc.oneof(named, inherited, fc.string(), fc.constant('text/csv; charset=latin1'));
  fc.assert(fc.property(given, (type) => contentTypeOf(type) === mimeTypes.contentType(type)));
  t.pass();
});
