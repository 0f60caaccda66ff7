/**
 * A real backend (`ward backend`, its own process) with metrics on: requests move the figures an
 * operator scrapes, the metrics listener is apart from the API and guarded by its token, and a
 * request's id comes back in its answer and reaches the log lines written for it.
 */
import net from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { scratchDir, ward } from '../helpers/cli.ts';
import { addUser, authEnv, call, installedDatabase, signIn } from '../helpers/app.ts';
import { testDatabase } from '../helpers/database.ts';
import { serve, type Served } from '../helpers/serve.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `name{labels}` → value, from Prometheus's text format. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

function metricsUrl(served: Served): string {
  const match = /Metrics are served at (http:\/\/\S+)/.exec(served.output());
  if (match === null) throw new Error(`no metrics address in the output:\n${served.output()}`);
  return match[1] as string;
}

async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (response.status !== 200)
    throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
  return samples(await response.text());
}

const requests = (route: string, status: number, method = 'GET') =>
  `ward_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`;

/** The first JSON log line of `served` that `matches`, waited for (at most a minute). */
async function logLine(
  served: Served,
  matches: (line: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = served
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find(matches);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no such log line in:\n${served.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function servedWithMetrics(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const served = await serve({
    ...authEnv(url, await scratchDir()),
    WARD_METRICS_PORT: '0',
    WARD_METRICS_TOKEN: TOKEN,
  });
  t.teardown(() => served.stop());
  return { served, metrics: metricsUrl(served) };
}

test('requests move the counters and histograms of their route template and status; pool and process figures are there', async (t) => {
  const { served, metrics } = await servedWithMetrics(t);
  const before = await scrape(metrics);
  const { token } = await signIn(served.base, 'ada');
  for (let i = 0; i < 3; i++) t.is((await call(served.base, 'GET', '/health')).status, 200);
  t.is((await call(served.base, 'GET', '/api/v1/intake/jobs/4711', { token })).status, 404);
  t.is((await call(served.base, 'GET', '/api/v1/intake/jobs/4712', { token })).status, 404);
  t.is((await call(served.base, 'GET', '/api/v1/no-such-thing', { token })).status, 404);
  const after = await scrape(metrics);

  const moved = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  t.is(moved(requests('/health', 200)), 3);
  t.is(moved(requests('/api/v1/auth/login', 200, 'POST')), 1);
  // The template, never the ids asked for: the number of series stays bounded.
  t.is(moved(requests('/api/v1/intake/jobs/:id', 404)), 2);
  t.is(moved(requests('(unmatched)', 404)), 1);
  t.false([...after.keys()].some((key) => key.includes('4711')));
  // Every answer falls in the +Inf bucket; the fast ones in the lower ones too.
  t.is(
    after.get(
      'ward_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health",status="200"}',
    ),
    after.get(requests('/health', 200)),
  );
  t.true(
    (after.get('ward_http_request_duration_seconds_sum{method="GET",route="/health",status="200"}') ?? -1) >
      0,
  );

  t.is(after.get('ward_db_pool_max_connections'), 10);
  for (const state of ['used', 'free', 'pending'])
    t.true(after.has(`ward_db_pool_connections{state="${state}"}`), state);
  t.is(after.get('ward_db_pool_waiting_requests'), 0);
  t.true((after.get('ward_reconcile_duration_seconds') ?? 0) > 0);
  // The process's own figures, under their usual names.
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_heap_size_used_bytes',
  ])
    t.true((after.get(name) ?? 0) > 0, name);
  t.true(after.has('nodejs_eventloop_lag_p99_seconds'));
});

test('the metrics listener wants its token and serves only /metrics; the API port does not serve them', async (t) => {
  const { served, metrics } = await servedWithMetrics(t);
  const refused = await fetch(metrics);
  t.is(refused.status, 401);
  t.is(refused.headers.get('www-authenticate'), 'Bearer realm="ward-metrics"');
  t.is(((await refused.json()) as { error: { code: string } }).error.code, 'unauthenticated');
  t.is((await fetch(metrics, { headers: { authorization: `Bearer ${TOKEN}x` } })).status, 401);
  t.is((await fetch(metrics, { headers: { authorization: TOKEN } })).status, 401);
  const scraped = await fetch(metrics, { headers: { authorization: `bearer ${TOKEN}` } });
  t.is(scraped.status, 200);
  t.regex(scraped.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  t.regex(await scraped.text(), /^# HELP /m);
  t.is((await fetch(new URL('/health', metrics))).status, 404);
  t.is((await fetch(metrics, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status, 405);

  t.not(new URL(metrics).port, new URL(served.base).port);
  // The API's port: the web shell answers unknown paths; no metric is ever in its answer.
  const onApi = await call(served.base, 'GET', '/metrics', { token: TOKEN });
  t.false(onApi.text.includes('ward_http_request_duration_seconds'));
  t.false(onApi.text.includes('process_cpu'));
});

test("a request's well-formed X-Request-Id comes back and reaches its log lines, a bug's too; a malformed one is replaced", async (t) => {
  const { served } = await servedWithMetrics(t);
  const given = await call(served.base, 'POST', '/api/v1/auth/login', {
    json: { username: 'ada', password: 'not the password at all' },
    headers: { 'x-request-id': 'trace-7f3a.42' },
  });
  t.is(given.status, 401);
  t.is(given.headers.get('x-request-id'), 'trace-7f3a.42');
  const ours = await call(served.base, 'GET', '/health', { headers: { 'x-request-id': 'two words' } });
  t.regex(
    ours.headers.get('x-request-id') ?? '',
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  );
  const fresh = await call(served.base, 'GET', '/health');
  t.not(fresh.headers.get('x-request-id'), ours.headers.get('x-request-id'));

  // Logged while the request was handled: the sign-in route's own line carries the id. The log
  // comes through a pipe, which may be read after the answer: wait for the line.
  const failed = await logLine(served, (line) => line.msg === 'sign-in failed');
  t.is(failed.requestId, 'trace-7f3a.42');
  // A bug's 500: the error handler's line, with its stack, names the request it failed.
  const { token } = await signIn(served.base, 'ada');
  const boom = await call(served.base, 'GET', '/api/v1/intake/boom', {
    token,
    headers: { 'x-request-id': 'support-ticket-1234' },
  });
  t.is(boom.status, 500);
  t.is(boom.headers.get('x-request-id'), 'support-ticket-1234');
  const bug = await logLine(served, (line) => line.msg === 'request failed');
  t.like(bug, { requestId: 'support-ticket-1234', path: '/api/v1/intake/boom' });
  t.truthy((bug.err as { stack?: string } | undefined)?.stack);
});

test('a bad metrics setting stops the backend before it touches the database, naming the variable and the fix', async (t) => {
  const { url, knex } = await testDatabase(t);
  const env = { ...authEnv(url, await scratchDir()), PORT: '0' };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ WARD_METRICS_PORT: '99999' }, /WARD_METRICS_PORT="99999" is not a TCP port/],
    [{ WARD_METRICS_PORT: '9464', WARD_METRICS_TOKEN: 'short' }, /WARD_METRICS_TOKEN is 5 characters long/],
    [{ WARD_METRICS_TOKEN: TOKEN }, /WARD_METRICS_TOKEN is set but WARD_METRICS_PORT is not/],
    [
      { WARD_METRICS_PORT: '9464', WARD_METRICS_HOST: 'not an address' },
      /WARD_METRICS_HOST="not an address"/,
    ],
    [{ WARD_METRICS_PORT: '9000', PORT: '9000' }, /WARD_METRICS_PORT=9000 is also the API's PORT/],
  ];
  for (const [settings, message] of cases) {
    const run = await ward(['backend'], { ...env, ...settings });
    t.is(run.code, 1, JSON.stringify(settings));
    t.regex(run.stderr, message);
    t.regex(run.stderr, /hint: /);
  }
  t.false(await knex.schema.hasTable('core_module'), 'the database was not touched');
});

test('the start-up reconcile and each step it applies are timed', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const env = authEnv(url, await scratchDir());
  const scheduled = await ward(['modules', 'install', 'intake'], env);
  t.is(scheduled.code, 0, scheduled.stderr);
  const served = await serve({ ...env, WARD_METRICS_PORT: '0', WARD_METRICS_TOKEN: TOKEN });
  t.teardown(() => served.stop());
  const scraped = await scrape(metricsUrl(served));
  const steps = [...scraped.keys()].filter((key) =>
    key.startsWith('ward_module_step_duration_seconds_count{module="intake",operation="install",'),
  );
  t.true(steps.length > 0, [...scraped.keys()].join('\n'));
  for (const key of steps) {
    t.regex(key, /,outcome="done"}$/);
    t.is(scraped.get(key), 1, key);
  }
  t.true((scraped.get('ward_reconcile_duration_seconds') ?? 0) > 0);
});

test('under ward serve, the backend after a restart serves metrics on the same fixed port', async (t) => {
  const { url } = await installedDatabase(t);
  const metricsPort = await freePort();
  const env = {
    ...authEnv(url, await scratchDir()),
    WARD_METRICS_PORT: String(metricsPort),
    WARD_METRICS_TOKEN: TOKEN,
  };
  const served = await serve(env, 'serve');
  t.teardown(() => served.stop());
  const metrics = metricsUrl(served);
  t.is(new URL(metrics).port, String(metricsPort));
  t.is((await call(served.base, 'GET', '/health')).status, 200);
  t.is((await scrape(metrics)).get(requests('/health', 200)), 1);

  t.is((await ward(['modules', 'restart'], env)).code, 0);
  const deadline = Date.now() + 60_000;
  while ((served.output().match(/Metrics are served at/g) ?? []).length < 2) {
    if (Date.now() > deadline) throw new Error(`no second backend:\n${served.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // A new process: its figures start afresh, at the same address.
  const after = await scrape(metrics);
  t.is(after.get(requests('/health', 200)), undefined);
  t.true(after.has('process_cpu_user_seconds_total'));
});
