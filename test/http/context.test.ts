/** The request context's pure parts: content types, the status it accepts, the query it parses. */
import test from 'ava';
import fc from 'fast-check';
import { contentTypeOf, WardContext } from '../../src/http/context.ts';

test('the short type names resolve without the MIME database, the rest through it', (t) => {
  t.is(contentTypeOf('json'), 'application/json; charset=utf-8');
  t.is(contentTypeOf('bin'), 'application/octet-stream');
  t.is(contentTypeOf('text/javascript; charset=utf-8'), 'text/javascript; charset=utf-8');
  t.is(contentTypeOf('.pdf'), 'application/pdf');
  t.is(contentTypeOf('application/x-ndjson'), 'application/x-ndjson');
  t.is(contentTypeOf('no-such-type'), false);
});

test('a status outside 100-999 or not a whole number is refused', (t) => {
  const ctx = new WardContext(
    { method: 'GET', url: '/', headers: {} } as never,
    { headersSent: false } as never,
    {
      proxy: false,
    },
  );
  for (const code of [99, 1000, 200.5, Number.NaN])
    t.throws(() => (ctx.status = code), { instanceOf: TypeError });
  t.is(ctx.status, 404);
});

test('any query string parses to what URLSearchParams reads, a repeated key as an array', (t) => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 6 }), (pairs) => {
      const text = new URLSearchParams(pairs).toString();
      const ctx = new WardContext({ method: 'GET', url: `/p?${text}`, headers: {} } as never, {} as never, {
        proxy: false,
      });
      const expected = new URLSearchParams(text);
      for (const key of new Set(expected.keys())) {
        const values = expected.getAll(key);
        t.deepEqual(ctx.query[key], values.length === 1 ? values[0] : values);
      }
      t.is(Object.keys(ctx.query).length, new Set(expected.keys()).size);
    }),
  );
});
