/** The API's pure decisions: credentials, CSRF, error rendering, OpenAPI paths, the routes contract. */
import test from 'ava';
import { presentedCredential } from '../../src/api/credentials.ts';
import { csrfProblem } from '../../src/api/csrf.ts';
import { renderError } from '../../src/api/errors.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { contractProblem } from '../../src/api/mount-modules.ts';
import { openApiPath } from '../../src/api/openapi.ts';
import { WardError } from '../../src/errors/ward-error.ts';

test('the Authorization header wins over the cookie, even when it is bad', (t) => {
  const cookie = (value: string | undefined) => () => value;
  t.deepEqual(presentedCredential('Bearer abc', cookie('cookie')), {
    kind: 'credential',
    source: 'bearer',
    secret: 'abc',
  });
  t.deepEqual(presentedCredential('bearer  abc ', cookie(undefined)), {
    kind: 'credential',
    source: 'bearer',
    secret: 'abc',
  });
  t.like(presentedCredential('Basic abc', cookie('cookie')), { kind: 'malformed' });
  t.like(presentedCredential('Bearer', cookie('cookie')), { kind: 'malformed' });
  t.like(presentedCredential('Bearer a b', cookie(undefined)), { kind: 'malformed' });
  t.deepEqual(presentedCredential(undefined, cookie('c')), {
    kind: 'credential',
    source: 'cookie',
    secret: 'c',
  });
  t.deepEqual(presentedCredential('', cookie('')), { kind: 'none' });
  presentedCredential('Bearer abc', () => t.fail('the cookie was read although a header was sent'));
});

test('CSRF applies to cookie-authenticated writes only', (t) => {
  for (const method of ['GET', 'HEAD', 'OPTIONS']) t.is(csrfProblem(method, 'cookie', undefined, 's'), null);
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    t.is(csrfProblem(method, 'bearer', undefined, 's'), null);
    t.regex(csrfProblem(method, 'cookie', undefined, 's') ?? '', /^missing X-CSRF-Token header/);
    t.regex(csrfProblem(method, 'cookie', 'wrong', 's') ?? '', /does not match/);
    t.is(csrfProblem(method, 'cookie', 's', 's'), null);
  }
});

test('errors render to one shape; unknown errors reveal nothing', (t) => {
  t.like(renderError(new ApiError(403, 'permission_denied', 'permission denied: a.b', 'h')), {
    status: 403,
    body: { error: { code: 'permission_denied', message: 'permission denied: a.b', hint: 'h' } },
    unexpected: false,
  });
  t.like(renderError(new WardError('database_unreachable', 'cannot reach', 'fix it')), {
    status: 503,
    unexpected: false,
  });
  t.like(renderError(new WardError('something_else', 'm', 'h')), {
    status: 500,
    body: { error: { message: 'm' } },
    unexpected: true,
  });
  t.like(renderError(Object.assign(new Error('no job 4'), { status: 404, expose: true })), {
    status: 404,
    body: { error: { code: 'not_found', message: 'no job 4' } },
  });
  t.like(renderError(Object.assign(new Error('db password is x'), { status: 500, expose: false })), {
    status: 500,
    body: { error: { code: 'internal_error', message: 'internal server error' } },
  });
  t.like(renderError(new TypeError('x is undefined')), { status: 500, unexpected: true });
  t.like(renderError('a string'), { status: 500, unexpected: true });
});

test('database errors a request can meet: a refused value is 400, a missing database 503', (t) => {
  const pgError = (code: string, message = 'from pg') => Object.assign(new Error(message), { code });
  const nul = renderError(pgError('22021', 'insert into patients_patient … - invalid byte sequence'));
  t.like(nul, {
    status: 400,
    body: { error: { code: 'invalid_value' } },
    unexpected: false,
    logDetail: { sqlState: '22021' },
  });
  t.regex(nul.body.error.message, /NUL/);
  t.notRegex(nul.body.error.message, /insert into/, 'no SQL in the answer');
  t.like(renderError(pgError('22008')), {
    status: 400,
    body: { error: { message: 'a date or time is out of range (years 1 to 9999)' } },
  });
  t.like(renderError(pgError('22999')), {
    status: 400,
    body: { error: { message: 'the database refused a value in the request' } },
  });
  for (const code of ['ECONNREFUSED', '57P01', '57P03', '08006'])
    t.like(renderError(pgError(code)), {
      status: 503,
      headers: { 'Retry-After': '5' },
      body: { error: { code: 'database_unavailable' } },
      unexpected: false,
    });
  t.like(renderError(new Error('Connection terminated unexpectedly')), { status: 503 });
  t.like(
    renderError(pgError('ECONNRESET')),
    { status: 500, unexpected: true },
    'a client hanging up is not the database',
  );
  t.like(renderError(pgError('23505')), { status: 500, unexpected: true });
});

test('koa paths become OpenAPI paths with their parameters', (t) => {
  t.deepEqual(openApiPath('/api/v1/x/jobs/:id/binaries/:file_id'), {
    path: '/api/v1/x/jobs/{id}/binaries/{file_id}',
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'file_id', in: 'path', required: true, schema: { type: 'string' } },
    ],
  });
  t.deepEqual(openApiPath('/health'), { path: '/health', parameters: [] });
});

const ok = { method: 'GET', path: '/jobs', permission: 'x.job.read', handler: async () => undefined };

const DECLARED = ['x.job.read', 'x.job.write'];

test('the routes contract: what a module must get right', (t) => {
  t.is(contractProblem('x', [ok, { ...ok, path: '/jobs/:id', permission: null }], DECLARED), null);
  const problems: Array<[string, unknown, RegExp]> = [
    ['me', [ok], /the name me is reserved/],
    ['x', {}, /must return an array/],
    ['x', [null], /route 0 is not an object/],
    ['x', [{ ...ok, method: 'TRACE' }], /method must be one of GET, POST, PUT, PATCH, DELETE/],
    ['x', [{ ...ok, path: 'jobs' }], /path must start with \//],
    ['x', [{ ...ok, permission: undefined }], /route 0 \(GET \/jobs\): permission must be a permission name/],
    ['x', [{ ...ok, permission: 'Admin' }], /permission must be a permission name/],
    ['x', [{ ...ok, handler: 'nope' }], /handler must be a function/],
    ['x', [{ ...ok, body: 'schema' }], /body must be a JSON Schema object/],
    [
      'x',
      [{ ...ok, method: 'POST', rawBody: true, body: {} }],
      /a rawBody route cannot also declare a JSON body schema/,
    ],
    ['x', [ok, ok], /GET \/jobs is defined twice/],
  ];
  for (const [module, routes, expected] of problems)
    t.regex(contractProblem(module, routes, DECLARED) ?? '', expected);
});

test('a route whose permission the manifest does not declare is refused, naming the declared ones', (t) => {
  t.is(
    contractProblem('x', [{ ...ok, permission: 'x.jobs.read' }], DECLARED),
    "route 0 (GET /jobs): permission x.jobs.read is not declared in the manifest's permissions (x.job.read, x.job.write); declare it there or fix the name",
  );
  t.is(
    contractProblem('x', [ok], []),
    "route 0 (GET /jobs): permission x.job.read is not declared in the manifest's permissions (none); declare it there or fix the name",
  );
});
