/**
 * One error shape everywhere, and the statuses: 404, 405, 400, 413, 415,
 * 422, 500 (revealing nothing), 503 for a module whose routes broke the contract or when the base
 * module is missing; and the OpenAPI document that describes them.
 */
import path from 'node:path';
import test from 'ava';
import { pino } from 'pino';
import { ROOT, loadConfig } from '../../src/config.ts';
import { discover } from '../../src/manifests/discover.ts';
import { readModuleRows } from '../../src/db/modules.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { addUser, call, installedDatabase, signIn, startApp, type Answer } from '../helpers/app.ts';

const errorOf = (answer: Answer) =>
  (answer.body as { error: { code: string; message: string; hint: string } }).error;

async function admin(t: Parameters<typeof installedDatabase>[0], overrides = {}) {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const running = await startApp(t, knex, { overrides });
  const { token } = await signIn(running.base, 'ada');
  return { ...running, knex, token };
}

test('unknown routes get 404 in the error shape, signed in or not', async (t) => {
  const { base, token } = await admin(t);
  for (const options of [{}, { token }]) {
    const answer = await call(base, 'GET', '/api/v1/nothing/here', options);
    t.is(answer.status, 404);
    t.deepEqual(answer.body, {
      error: {
        code: 'not_found',
        message: 'nothing at GET /api/v1/nothing/here',
        hint: 'check the path; GET /api/v1/openapi.json lists every route',
      },
    });
    t.regex(answer.headers.get('content-type') ?? '', /^application\/json/);
  }
});

test('a handler that throws 404 keeps its message', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'GET', '/api/v1/intake/jobs/999', { token });
  t.is(answer.status, 404);
  t.is(errorOf(answer).message, 'no intake job 999');
});

test('a known path with the wrong method gets 405 with Allow', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'DELETE', '/api/v1/me', { token });
  t.is(answer.status, 405);
  t.is(errorOf(answer).code, 'method_not_allowed');
  t.is(errorOf(answer).message, 'DELETE is not allowed on /api/v1/me');
  t.regex(answer.headers.get('allow') ?? '', /GET/);
});

test('422 names the JSON path and the problem, before the handler runs', async (t) => {
  const { base, token, knex } = await admin(t);
  const cases: Array<[unknown, string]> = [
    [{ title: 5 }, 'the request body is invalid at /title: must be a string'],
    [{}, 'the request body is invalid at /: missing required field "title"'],
    [
      { title: 'ok', extra: 1 },
      'the request body is invalid at /extra: unknown field; allowed fields are title',
    ],
    [{ title: '' }, 'the request body is invalid at /title: must not be empty'],
    [[1, 2], 'the request body is invalid at /: must be an object'],
  ];
  for (const [json, message] of cases) {
    const answer = await call(base, 'POST', '/api/v1/intake/jobs', { token, json });
    t.is(answer.status, 422, JSON.stringify(json));
    t.is(errorOf(answer).code, 'invalid_body');
    t.is(errorOf(answer).message, message);
  }
  const empty = await call(base, 'POST', '/api/v1/intake/jobs', { token });
  t.is(empty.status, 422);
  t.is(errorOf(empty).message, 'the request has no body; this route takes a JSON body');
  t.is(
    await knex('intake_job')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    0,
  );
});

test('malformed JSON gets 400 invalid_json', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'POST', '/api/v1/intake/jobs', {
    token,
    body: '{"title": ',
    headers: { 'content-type': 'application/json' },
  });
  t.is(answer.status, 400);
  t.is(errorOf(answer).code, 'invalid_json');
  t.regex(errorOf(answer).message, /^the request body is not valid JSON: /);
});

test('a body that is not JSON gets 415 on a JSON route', async (t) => {
  const { base, token } = await admin(t);
  const cases: Array<[string, string]> = [
    ['text/plain', 'this route takes a JSON body, not text/plain'],
    [
      'application/x-www-form-urlencoded',
      'this route takes a JSON body, not application/x-www-form-urlencoded',
    ],
    ['application/json; charset=latin1', 'this route takes uncompressed UTF-8 JSON, not latin1'],
  ];
  for (const [type, message] of cases) {
    const answer = await call(base, 'POST', '/api/v1/intake/jobs', {
      token,
      body: 'title=x',
      headers: { 'content-type': type },
    });
    t.is(answer.status, 415, type);
    t.is(errorOf(answer).code, 'unsupported_media_type');
    t.is(errorOf(answer).message, message);
  }
});

test('bodies over the limit get 413, declared or streamed', async (t) => {
  const { base, token } = await admin(t, { jsonLimit: 1024 });
  const big = JSON.stringify({ title: 'x'.repeat(2000) });
  const declared = await call(base, 'POST', '/api/v1/intake/jobs', { token, json: JSON.parse(big) });
  t.is(declared.status, 413);
  t.deepEqual(declared.body, {
    error: {
      code: 'body_too_large',
      message: 'the request body is larger than the limit of 1024 bytes',
      hint: 'send a smaller body (the operator sets the limit with WARD_JSON_LIMIT)',
    },
  });
  const streamed = await fetch(`${base}/api/v1/intake/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: new Blob([big]).stream(),
    duplex: 'half',
  } as RequestInit);
  t.is(streamed.status, 413);
  t.is(((await streamed.json()) as { error: { code: string } }).error.code, 'body_too_large');
  const fits = await call(base, 'POST', '/api/v1/intake/jobs', { token, json: { title: 'x'.repeat(150) } });
  t.is(fits.status, 201);
});

test('the default JSON limit is 1 MiB', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'POST', '/api/v1/intake/jobs', {
    token,
    json: { title: 'x'.repeat(1024 * 1024) },
  });
  t.is(answer.status, 413);
  t.is(errorOf(answer).message, 'the request body is larger than the limit of 1048576 bytes');
});

test('an unexpected error is a 500 that reveals nothing', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'GET', '/api/v1/intake/boom', { token });
  t.is(answer.status, 500);
  t.deepEqual(answer.body, {
    error: {
      code: 'internal_error',
      message: 'internal server error',
      hint: 'the backend logged the details; try again, and report it if it keeps happening',
    },
  });
  t.false(answer.text.includes('secret'));
});

test('a handled 4xx is one info line with its code, without a stack, paths or the values sent; a bug is an error with its stack', async (t) => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const { base, token } = await admin(t, { logger });
  const stored = await call(base, 'POST', '/api/v1/intake/jobs', {
    token,
    json: { title: 'Ann\u0000Smith' },
  });
  t.is(stored.status, 400, stored.text);
  t.is(errorOf(stored).code, 'invalid_value');
  t.is((await call(base, 'GET', '/api/v1/intake/jobs/999', { token })).status, 404);
  t.is((await call(base, 'GET', '/api/v1/intake/boom', { token })).status, 500);
  const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const refused = events.filter((event) => event.msg === 'request refused');
  t.deepEqual(
    refused.map(({ level, method, path, status, code, sqlState }) => ({
      level,
      method,
      path,
      status,
      code,
      sqlState,
    })),
    [
      {
        level: 30,
        method: 'POST',
        path: '/api/v1/intake/jobs',
        status: 400,
        code: 'invalid_value',
        sqlState: '22021',
      },
      {
        level: 30,
        method: 'GET',
        path: '/api/v1/intake/jobs/999',
        status: 404,
        code: 'not_found',
        sqlState: undefined,
      },
    ],
  );
  const refusals = refused.map((event) => JSON.stringify(event)).join('\n');
  t.false(refusals.includes('stack'), 'no stack');
  t.false(refusals.includes(ROOT), 'no path of the server');
  t.false(refusals.includes('Ann'), 'no value of the request');
  const bugs = events.filter((event) => event.msg === 'request failed');
  t.is(bugs.length, 1);
  t.is(bugs[0]?.level, 50);
  t.regex(String((bugs[0]?.err as { stack?: string } | undefined)?.stack), /\n\s+at /);
});

test('responses are not cacheable and not sniffable', async (t) => {
  const { base, token } = await admin(t);
  const answer = await call(base, 'GET', '/api/v1/me', { token });
  t.is(answer.headers.get('cache-control'), 'no-store');
  t.is(answer.headers.get('x-content-type-options'), 'nosniff');
});

test('a module whose routes break the contract answers 503 with the reason; the others still serve', async (t) => {
  const { knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const config = loadConfig({
    WARD_MODULE_PATHS: [
      path.join(FIXTURES, 'modules', 'auth'),
      path.join(FIXTURES, 'modules', 'auth-broken'),
    ].join(':'),
  });
  const rows = [
    ...(await readModuleRows(knex)),
    {
      name: 'broken_routes',
      state: 'installed' as const,
      version: '1.0.0',
      installed_at: new Date(),
      error_message: null,
      last_state_change: new Date(),
    },
  ];
  const { base, app } = await startApp(t, knex, { overrides: { inventory: await discover(config), rows } });
  t.deepEqual(
    app.failures.map((failure) => failure.module),
    ['broken_routes'],
  );
  const { token } = await signIn(base, 'ada');
  const broken = await call(base, 'GET', '/api/v1/broken_routes/things', { token });
  t.is(broken.status, 503);
  t.is(errorOf(broken).code, 'module_unavailable');
  t.regex(
    errorOf(broken).message,
    /^the routes of module broken_routes failed to load: .*routes\.ts: route 0 \(GET \/things\): permission must be a permission name/,
  );
  t.is(
    (await call(base, 'GET', '/api/v1/broken_routes/things')).status,
    401,
    'the reason is for signed-in callers only',
  );
  t.is((await call(base, 'GET', '/api/v1/intake/jobs', { token })).status, 200);
});

test('without the base module nobody can sign in, and the answer says how to fix it', async (t) => {
  const { knex } = await installedDatabase(t);
  const rows = (await readModuleRows(knex)).filter((row) => row.name !== 'base');
  const { base } = await startApp(t, knex, { overrides: { rows } });
  for (const [method, route] of [
    ['POST', '/api/v1/auth/login'],
    ['GET', '/api/v1/me'],
  ] as const) {
    const answer = await call(base, method, route, {
      json: method === 'POST' ? { username: 'a', password: 'b' } : undefined,
    });
    t.is(answer.status, 503, route);
    t.deepEqual(answer.body, {
      error: {
        code: 'auth_unavailable',
        message: 'sign-in is unavailable: the base module, which holds users, is not installed',
        hint: 'run `ward modules install base`, then restart the backend',
      },
    });
  }
  t.is((await call(base, 'GET', '/health')).status, 200);
});

test('an invalid grants file stops the app from starting, naming the file', async (t) => {
  const { knex } = await installedDatabase(t);
  const error = await t.throwsAsync(startApp(t, knex, { grants: { roles: { Bad: [] } } }));
  t.regex(error?.message ?? '', /grants\.json: \/roles\/Bad is not a valid role name/);
});

test('the OpenAPI document describes core and module routes, their permissions and the error shape', async (t) => {
  const { base } = await admin(t);
  const answer = await call(base, 'GET', '/api/v1/openapi.json');
  t.is(answer.status, 200, 'public');
  const doc = answer.body as {
    openapi: string;
    paths: Record<
      string,
      Record<
        string,
        {
          'x-ward-permission'?: string;
          security?: unknown[];
          responses: Record<string, unknown>;
          parameters?: unknown[];
          requestBody?: unknown;
        }
      >
    >;
    components: { schemas: { Error: { required: string[]; properties: { error: { required: string[] } } } } };
  };
  t.is(doc.openapi, '3.1.0');
  t.deepEqual(doc.components.schemas.Error.required, ['error']);
  t.deepEqual(doc.components.schemas.Error.properties.error.required, ['code', 'message', 'hint']);
  const execute = doc.paths['/api/v1/intake/jobs/{id}/execute']?.post;
  t.is(execute?.['x-ward-permission'], 'intake.job.execute');
  t.deepEqual(execute?.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
  t.deepEqual(execute?.responses['403'], { $ref: '#/components/responses/Forbidden' });
  const create = doc.paths['/api/v1/intake/jobs']?.post;
  t.deepEqual(create?.responses['422'], { $ref: '#/components/responses/UnprocessableEntity' });
  t.truthy(create?.requestBody);
  t.deepEqual(doc.paths['/api/v1/auth/login']?.post?.security, []);
  t.is(doc.paths['/api/v1/modules/-/restart']?.post?.['x-ward-permission'], 'base.module.restart');
  for (const route of ['/api/v1/me', '/api/v1/modules/-/active', '/health', '/api/v1/openapi.json'])
    t.truthy(doc.paths[route]?.get, route);
});
