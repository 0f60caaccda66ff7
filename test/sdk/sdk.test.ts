/**
 * The SDK object on its own: one frozen object whose errors are the classes Ward renders, and whose
 * helpers read requests, pages, settings and schemas as the official modules rely on.
 */
import test from 'ava';
import type { Context } from '../../src/sdk/index.ts';
import { rememberCaller } from '../../src/auth/request-caller.ts';
import { renderError } from '../../src/api/errors.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { WardError } from '../../src/errors/ward-error.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { sdk } from '../../src/sdk/runtime.ts';

/** Just what the helpers read of a request. */
const request = (fields: { query?: Record<string, string | string[]>; params?: object }) =>
  ({ query: {}, params: {}, state: {}, ...fields }) as unknown as Context;

test('the sdk and each of its parts are frozen: no module can change what another gets', (t) => {
  t.is(sdk.version, '2.0.0');
  for (const part of [sdk, sdk.errors, sdk.http, sdk.db, sdk.settings, sdk.validation, sdk.text])
    t.true(Object.isFrozen(part));
  t.throws(() => {
    (sdk.errors as { notFound: unknown }).notFound = () => null;
  });
});

test("the sdk's errors are Ward's own classes, rendered in Ward's one error shape", (t) => {
  t.is(sdk.errors.ApiError, ApiError);
  t.is(sdk.errors.WardError, WardError);
  t.like(renderError(sdk.errors.notFound('lab result', 7)), {
    status: 404,
    body: { error: { code: 'not_found', message: 'there is no lab result 7' } },
  });
  t.like(renderError(sdk.errors.invalidQuery('limit', 'must be an integer')), {
    status: 400,
    body: { error: { code: 'invalid_query', message: 'the query parameter limit must be an integer' } },
  });
  t.like(renderError(sdk.errors.invalidBody('/kind', 'there is no kind "x"')), {
    status: 422,
    body: {
      error: { code: 'invalid_body', message: 'the request body is invalid at /kind: there is no kind "x"' },
    },
  });
  t.like(renderError(sdk.errors.bodyTooLarge('the scan', 10, 'send a smaller scan')), {
    status: 413,
    body: {
      error: { message: 'the scan is larger than the limit of 10 bytes', hint: 'send a smaller scan' },
    },
    headers: { Connection: 'close' },
  });
  t.true(sdk.errors.isWardError(sdk.errors.notFound('x', 1)));
  t.false(sdk.errors.isWardError(new Error('bug')));
});

test('ids: positive PostgreSQL integers only; a malformed route id is a 404 naming what was asked for', (t) => {
  t.is(sdk.http.parseId('2147483647'), 2147483647);
  for (const text of ['0', '2147483648', '01', '1.5', '-1', '', undefined])
    t.is(sdk.http.parseId(text), null);
  const error = t.throws(() => sdk.http.idParam(request({ params: { id: 'abc' } }), 'id', 'reading'), {
    instanceOf: ApiError,
  });
  t.is(error?.message, 'there is no reading abc');
});

test('a repeated query parameter is refused rather than one of its values picked', (t) => {
  t.is(sdk.http.queryText(request({ query: { q: '' } }), 'q'), undefined);
  t.is(sdk.http.queryText(request({ query: { q: 'ada' } }), 'q'), 'ada');
  const error = t.throws(() => sdk.http.queryText(request({ query: { q: ['a', 'b'] } }), 'q'));
  t.is(error?.message, 'the query parameter q is given more than once');
});

test('query text is NFC; bytes that are not UTF-8 are a 400, a U+FFFD sent as UTF-8 is kept', (t) => {
  /** What Koa gives for `querystring`: the parsed values and the raw text. */
  const parsed = (querystring: string) =>
    ({
      query: Object.fromEntries(new URLSearchParams(querystring)),
      querystring,
      params: {},
      state: {},
    }) as unknown as Context;
  t.is(sdk.http.queryText(parsed('q=Zoe%CC%88'), 'q'), 'Zo\u00EB');
  t.is(sdk.http.queryText(parsed('q=%EF%BF%BD&x=%FF'), 'q'), '\uFFFD', 'only the parameter read is checked');
  t.is(sdk.http.queryText(parsed('q=100%+%EF%BF%BD'), 'q'), '100% \uFFFD');
  for (const querystring of ['q=M%FCller', 'q=%C3', 'q=%ED%A0%80', 'x=1&q=a%FF'])
    t.is(
      t.throws(() => sdk.http.queryText(parsed(querystring), 'q'), { instanceOf: ApiError })?.message,
      'the query parameter q is not UTF-8 once percent-decoded; percent-encode its UTF-8 bytes',
      querystring,
    );
});

test('a page cursor round-trips through toPage and pageRequest; a foreign one is a 400', (t) => {
  const rows = [
    { at: '2026-07-01T09:00:00+00:00', id: 3 },
    { at: '2026-07-01T08:00:00+00:00', id: 2 },
    { at: '2026-07-01T07:00:00+00:00', id: 1 },
  ];
  const page = sdk.http.toPage(
    rows,
    2,
    (row) => [row.at, row.id],
    (row) => row.id,
  );
  t.deepEqual(page.items, [3, 2]);
  const next = sdk.http.pageRequest(request({ query: { cursor: page.nextCursor!, limit: '2' } }), [
    'timestamp',
    'integer',
  ]);
  t.deepEqual(next, { limit: 2, after: ['2026-07-01T08:00:00+00:00', 2], offset: 0 });
  t.is(
    sdk.http.toPage(
      rows.slice(0, 2),
      2,
      (row) => [row.id],
      (row) => row.id,
    ).nextCursor,
    null,
  );
  const error = t.throws(() =>
    sdk.http.pageRequest(request({ query: { cursor: page.nextCursor! } }), ['integer']),
  );
  t.is(
    error?.message,
    'the query parameter cursor is not a cursor this list gave out; start again without it',
  );
});

test('an instant needs its offset and a real day', (t) => {
  t.true(sdk.http.isInstant('2026-02-28T23:59:59.123456+01:00'));
  for (const value of ['2026-02-30T10:00:00Z', '2026-02-28T10:00:00', '2026-02-28', 42])
    t.false(sdk.http.isInstant(value));
});

test("the caller is the principal without its credential's secrets, and can() honours module-wide grants", (t) => {
  const principal: Principal = {
    userId: 4,
    username: 'ada',
    roles: ['clinician', 'lab'],
    activeRoles: ['lab'],
    permissions: { all: false, namespaces: new Set(['vitals']), names: new Set(['patients.patient.read']) },
    credential: { kind: 'token', id: 9, name: 'lab bench', scope: 'lab', expiresAt: null },
    mustChangePassword: false,
    mustEnrolTwoFactor: false,
  };
  const ctx = request({});
  rememberCaller(ctx, { principal, source: 'bearer', secret: 's3cret' });
  const caller = sdk.http.caller(ctx);
  t.like(caller, {
    userId: 4,
    username: 'ada',
    roles: ['clinician', 'lab'],
    activeRoles: ['lab'],
    via: 'token',
  });
  t.false(JSON.stringify(caller).includes('s3cret'));
  t.true(caller.can('vitals.reading.write'));
  t.true(caller.can('patients.patient.read'));
  t.false(caller.can('patients.patient.write'));
});

test("constraint failures are told apart from other errors by node-postgres's fields", (t) => {
  t.deepEqual(
    sdk.db.constraintError({ code: sdk.db.UNIQUE_VIOLATION, constraint: 'vitals_kind_code_unique' }),
    {
      code: '23505',
      constraint: 'vitals_kind_code_unique',
    },
  );
  t.is(sdk.db.constraintError(new Error('connection refused')), null);
  t.is(sdk.db.constraintError(undefined), null);
});

test("a module's size setting: bytes, kb or mb; anything else names the variable and suggests sizes", (t) => {
  t.is(sdk.settings.parseSize('512kb', 'VITALS_MAX_EXPORT'), 512 * 1024);
  const error = t.throws(() => sdk.settings.parseSize('lots', 'VITALS_MAX_EXPORT'), {
    instanceOf: WardError,
  });
  t.like(error, {
    code: 'invalid_setting',
    message: 'VITALS_MAX_EXPORT="lots" is not a size',
    hint: 'give bytes or a number with kb or mb, such as 512kb or 25mb',
  });
  t.like(
    t.throws(() => sdk.settings.parseSize('0', 'VITALS_MAX_EXPORT', '1mb (the default) or 10mb')),
    { hint: 'give bytes or a number with kb or mb, such as 1mb (the default) or 10mb' },
    'a module names its own default',
  );
});

test("a compiled schema checks values and words the first problem as Ward's 422s do", (t) => {
  const check = sdk.validation.compile<{ age: number; seen: string }>({
    type: 'object',
    required: ['age'],
    properties: { age: { type: 'integer', minimum: 0 }, seen: { type: 'string', format: 'date-time' } },
  });
  t.true(check({ age: 3 }));
  t.is(check.problem({ age: 3 }), null);
  t.deepEqual(check.problem({ age: -1 }), { path: '/age', message: 'must be >= 0' });
  t.deepEqual(check.problem({}), { path: '/', message: 'missing required field "age"' });
  t.false(check({ age: 1, seen: '2026-02-30T10:00:00Z' }), 'formats are checked');
  t.throws(() => sdk.validation.compile({ type: 'nonsense' }));
});
