import test from 'ava';
import fc from 'fast-check';
import { Router } from '@koa/router';
import { parseTemplate, routeTable, type TableRoute } from '../../src/api/route-table.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const ASKED = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'] as const;

const segment = fc.constantFrom(
  'a',
  'b',
  'me',
  'Jobs',
  'x-1',
  'v1',
  ':id',
  ':name',
  ':id',
  'a.json',
  ':id.json',
  '{x}',
);
const tail = fc.constantFrom('', '', '', '/*rest', '/{*rest}', '{/*rest}');
const template = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 4 }), tail)
  .map(([segments, end]) => `/${segments.join('/')}${end}`);
const pathPart = fc.constantFrom(
  'a',
  'A',
  'b',
  'me',
  'ME',
  'jobs',
  'x-1',
  'v1',
  '42',
  '%41',
  'caf%C3%A9',
  '%E0%A4%A',
  'a.json',
  'x',
  '',
);
const path = fc
  .tuple(fc.array(pathPart, { minLength: 0, maxLength: 6 }), fc.boolean())
  .map(([parts, slash]) => `/${parts.join('/')}${slash ? '/' : ''}`);
const routes = fc.array(fc.record({ method: fc.constantFrom(...METHODS), template }), {
  minLength: 1,
  maxLength: 12,
});

/** What @koa/router, which Ward used before, answers: the route that runs, its params, the allowed methods. */
function oracle(list: readonly { method: string; template: string }[], method: string, asked: string) {
  const router = new Router();
  list.forEach((route, index) => router.register(route.template, [route.method], [() => index]));
  const match = router.match(asked, method);
  const layer = match.pathAndMethod.find((candidate) => candidate.methods.length > 0);
  const allowed = [...new Set(match.path.flatMap((candidate) => candidate.methods))];
  if (layer === undefined) return { index: null, params: {}, allowed };
  return {
    index: list.findIndex((_, index) => router.stack[index] === layer),
    params: layer.params(asked, layer.captures(asked), {}),
    allowed,
  };
}

test('the route table answers every path and method as @koa/router did', (t) => {
  fc.assert(
    fc.property(routes, path, fc.constantFrom(...ASKED), (list, asked, method) => {
      const table = routeTable(list.map((route, index): TableRoute<number> => ({ ...route, value: index })));
      const found = table.find(method, asked);
      const expected = oracle(list, method, asked);
      t.deepEqual(
        { index: found.route?.value ?? null, params: { ...found.params }, allowed: [...found.allowed] },
        expected,
      );
    }),
    { numRuns: 3000 },
  );
});

test('a path without parameters is answered from the table built at start, in any letter case', (t) => {
  const table = routeTable([
    { method: 'GET', template: '/api/v1/bench_ping/ping', value: 'ping' },
    { method: 'POST', template: '/api/v1/bench_ping/ping', value: 'post' },
  ]);
  t.like(table.find('GET', '/api/v1/bench_ping/ping'), {
    route: { value: 'ping' },
    allowed: ['HEAD', 'GET', 'POST'],
  });
  t.like(table.find('HEAD', '/API/v1/Bench_Ping/PING'), { route: { value: 'ping' } });
  t.like(table.find('PUT', '/api/v1/bench_ping/ping/'), { route: null, allowed: ['HEAD', 'GET', 'POST'] });
  t.deepEqual(table.find('GET', '/api/v1/bench_ping/pin').allowed, []);
});

test('the route registered first wins, a fixed path included', (t) => {
  const table = routeTable([
    { method: 'GET', template: '/practitioners/:id', value: 'by id' },
    { method: 'GET', template: '/practitioners/me', value: 'me' },
    { method: 'GET', template: '/patients/search', value: 'search' },
    { method: 'GET', template: '/patients/:id', value: 'patient' },
  ]);
  t.like(table.find('GET', '/practitioners/me'), { route: { value: 'by id' }, params: { id: 'me' } });
  t.like(table.find('GET', '/patients/search'), { route: { value: 'search' }, params: {} });
  t.like(table.find('GET', '/patients/caf%C3%A9'), { route: { value: 'patient' }, params: { id: 'café' } });
});

test('templates the segment tree cannot express are left to path-to-regexp', (t) => {
  t.is(parseTemplate('/files/:id.json'), null);
  t.is(parseTemplate('/x/jobs/{id}/binaries'), null);
  t.deepEqual(parseTemplate('/api/v1/m/{*rest}'), {
    segments: ['api', 'v1', 'm'],
    names: ['rest'],
    tail: { kind: 'optional', name: 'rest' },
  });
});
