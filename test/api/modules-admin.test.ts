/**
 * The modules admin page's reads: each answers what the matching `ward modules … --json` prints
 * (compared with the real CLI on the same database), behind `base.module.read`; the operation log
 * pages by id; and a page that asked for a restart can tell when another backend answers.
 */
import test, { type ExecutionContext } from 'ava';
import { appendLog } from '../../src/db/modules.ts';
import { loadConfig } from '../../src/config.ts';
import { nextStartSources } from '../../src/inspect/module-reports.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { addUser, authEnv, call, installedDatabase, signIn, startApp, type Answer } from '../helpers/app.ts';

const GRANTS = { roles: { module_viewer: ['base.module.read'] } };

interface LogPage {
  entries: Array<{
    id: number;
    run_id: string;
    module_name: string;
    operation: string;
    step: string;
    status: string;
    message: string | null;
    created_at: string;
  }>;
  more: boolean;
}

/** A backend on a database with base and intake installed, its disk and settings read as `ward` reads them. */
async function world(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  await addUser(knex, 'carl', []);
  await addUser(knex, 'vera', ['module_viewer']);
  const env = authEnv(url, await scratchDir());
  const config = loadConfig(env);
  const app = await startApp(t, knex, {
    grants: GRANTS,
    overrides: {
      moduleSources: nextStartSources(knex, () => ({ config, unreadable: null })),
      preflight: async () => [],
    },
  });
  const tokens = new Map<string, string>();
  const token = async (user: string): Promise<string> => {
    if (!tokens.has(user)) tokens.set(user, (await signIn(app.base, user)).token);
    return tokens.get(user) as string;
  };
  const get = async (pathname: string, user = 'ada'): Promise<Answer> =>
    call(app.base, 'GET', pathname, { token: await token(user) });
  return { ...app, url, knex, env, get, token };
}

const logIds = async (knex: Awaited<ReturnType<typeof world>>['knex']) =>
  ((await knex('core_module_operation_log').select('id').orderBy('id', 'desc')) as Array<{ id: string }>).map(
    (row) => Number(row.id),
  );

const errorOf = (answer: Answer) =>
  (answer.body as { error: { code: string; message: string; hint: string } }).error;

test('list: the objects `ward modules list --json` prints, with the disk version, last error and last state change', async (t) => {
  const { get, env, knex } = await world(t);
  await knex('core_module').where({ name: 'intake' }).update({ error_message: 'seed failed: boom' });
  const answer = await get('/api/v1/modules');
  t.is(answer.status, 200, answer.text);
  const { modules } = answer.body as { modules: Array<Record<string, unknown>> };
  const cli = parseJson<Array<Record<string, unknown>>>(await ward(['modules', 'list', '--json'], env));
  t.deepEqual(
    modules.map(({ name, version, state, category, depends }) => ({
      name,
      version,
      state,
      category,
      depends,
    })),
    cli,
  );
  const intake = modules.find((module) => module.name === 'intake');
  t.like(intake, {
    version: '1.0.0',
    diskVersion: '1.0.0',
    state: 'installed',
    category: 'community',
    depends: ['base'],
    errorMessage: 'seed failed: boom',
  });
  t.regex(intake?.lastStateChange as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const never = modules.find((module) => module.state === 'uninstalled');
  t.like(never, { errorMessage: null, lastStateChange: null });
});

test('doctor: the report `ward modules doctor --json` prints, here an orphan row', async (t) => {
  const { get, env, knex } = await world(t);
  const clean = await get('/api/v1/modules/-/doctor');
  t.is(clean.status, 200, clean.text);
  t.like(clean.body, { ok: true, orphans: [], configuration: [] });

  await knex('core_module').insert({ name: 'ghost', state: 'installed', version: '1.0.0' });
  const answer = await get('/api/v1/modules/-/doctor');
  t.is(answer.status, 200, answer.text);
  const report = answer.body as {
    ok: boolean;
    orphans: Array<{ module: string; state: string; hint: string }>;
  };
  t.false(report.ok);
  t.deepEqual(
    report.orphans.map(({ module, state }) => ({ module, state })),
    [{ module: 'ghost', state: 'installed' }],
  );
  t.regex(report.orphans[0]?.hint ?? '', /WARD_MODULE_PATHS/);
  const cli = await ward(['modules', 'doctor', '--json'], env);
  t.is(cli.code, 1, 'the CLI exits 1 on the same finding');
  t.deepEqual(report, parseJson(cli));
});

test('plan: empty, then after `ward modules install` what the next restart will apply, as `ward modules plan --json`', async (t) => {
  const { get, env } = await world(t);
  const empty = await get('/api/v1/modules/-/plan');
  t.is(empty.status, 200, empty.text);
  t.deepEqual(empty.body, {
    plan: { actions: [], unchanged: [], blocked: [], inactive: [] },
    summary: { install: 0, upgrade: 0, uninstall: 0 },
  });

  const scheduled = await ward(['modules', 'install', 'patients'], env);
  t.is(scheduled.code, 0, scheduled.stderr);
  const answer = await get('/api/v1/modules/-/plan');
  t.is(answer.status, 200, answer.text);
  t.like(answer.body, {
    plan: {
      actions: [
        {
          kind: 'install',
          module: 'patients',
          fromVersion: null,
          toVersion: '1.3.0',
          reason: { kind: 'pending' },
        },
      ],
    },
    summary: { install: 1, upgrade: 0, uninstall: 0 },
  });
  t.deepEqual(answer.body, parseJson(await ward(['modules', 'plan', '--json'], env)));
});

test('log: newest first, 50 by default, paged back with before=<id> until more is false', async (t) => {
  const { get, knex } = await world(t);
  const runId = '00000000-0000-4000-8000-000000000001';
  await appendLog(
    knex,
    runId,
    Array.from({ length: 60 }, (_, index) => ({
      module_name: 'intake',
      operation: 'upgrade',
      step: 'migrate',
      status: index === 59 ? 'failed' : 'done',
      message: index === 59 ? 'relation "x" does not exist' : null,
    })),
  );
  const all = await logIds(knex);

  const first = await get('/api/v1/modules/-/log');
  t.is(first.status, 200, first.text);
  const page = first.body as LogPage;
  t.is(page.entries.length, 50);
  t.true(page.more);
  t.deepEqual(
    page.entries[0],
    {
      id: all[0] as number,
      run_id: runId,
      module_name: 'intake',
      operation: 'upgrade',
      step: 'migrate',
      status: 'failed',
      message: 'relation "x" does not exist',
      created_at: page.entries[0]?.created_at as string,
    },
    'exactly the listed fields',
  );
  t.regex(page.entries[0]?.created_at ?? '', /Z$/);

  const seen: number[] = [];
  let before: number | null = null;
  for (;;) {
    const answer = await get(`/api/v1/modules/-/log?limit=7${before === null ? '' : `&before=${before}`}`);
    t.is(answer.status, 200, answer.text);
    const { entries, more } = answer.body as LogPage;
    seen.push(...entries.map((entry) => entry.id));
    if (!more) break;
    t.is(entries.length, 7);
    before = entries.at(-1)?.id as number;
  }
  t.deepEqual(seen, all, 'every row once, newest first');
  t.is(
    ((await get('/api/v1/modules/-/log?limit=200')).body as LogPage).entries.length,
    Math.min(200, all.length),
  );
});

test('log: after=<id> lists the newer rows oldest first, in pages too', async (t) => {
  const { get, knex } = await world(t);
  const [newest] = await logIds(knex);
  t.deepEqual((await get(`/api/v1/modules/-/log?after=${newest}`)).body, { entries: [], more: false });
  await appendLog(knex, '00000000-0000-4000-8000-000000000002', [
    { module_name: 'patients', operation: 'install', step: 'check', status: 'done' },
    { module_name: 'patients', operation: 'install', step: 'migrate', status: 'started' },
    { module_name: 'patients', operation: 'install', step: 'migrate', status: 'done' },
  ]);
  const first = (await get(`/api/v1/modules/-/log?after=${newest}&limit=2`)).body as LogPage;
  t.deepEqual(
    first.entries.map((entry) => `${entry.step} ${entry.status}`),
    ['check done', 'migrate started'],
  );
  t.true(first.more);
  const rest = (await get(`/api/v1/modules/-/log?after=${first.entries[1]?.id}&limit=2`)).body as LogPage;
  t.deepEqual(
    rest.entries.map((entry) => `${entry.step} ${entry.status}`),
    ['migrate done'],
  );
  t.false(rest.more);
});

test('log: a malformed or out-of-range parameter is 400 invalid_query naming it, and changes nothing', async (t) => {
  const { get, knex } = await world(t);
  const before = await logIds(knex);
  const cases: Array<[string, string]> = [
    ['limit=0', 'the query parameter limit must be a whole number from 1 to 200, not "0"'],
    ['limit=201', 'the query parameter limit must be a whole number from 1 to 200, not "201"'],
    ['limit=ten', 'the query parameter limit must be a whole number from 1 to 200, not "ten"'],
    ['before=-1', 'the query parameter before must be an operation-log id (a whole number), not "-1"'],
    ['after=1.5', 'the query parameter after must be an operation-log id (a whole number), not "1.5"'],
    ['limit=5&limit=6', 'the query parameter limit must be a whole number from 1 to 200, not ["5","6"]'],
    [
      'before=9&after=3',
      'the query parameter after cannot go with before: page back with before, follow new rows with after',
    ],
  ];
  for (const [query, message] of cases) {
    const answer = await get(`/api/v1/modules/-/log?${query}`);
    t.is(answer.status, 400, query);
    t.deepEqual(errorOf(answer), {
      code: 'invalid_query',
      message,
      hint: 'fix that parameter and send the request again (GET /api/v1/openapi.json lists the routes)',
    });
  }
  t.deepEqual(await logIds(knex), before);
});

test('every read needs base.module.read: 403 naming it without, 200 with only it, which does not allow a restart', async (t) => {
  const { get, base, token, restarts } = await world(t);
  const paths = [
    '/api/v1/modules',
    '/api/v1/modules/-/doctor',
    '/api/v1/modules/-/plan',
    '/api/v1/modules/-/log',
    '/api/v1/modules/-/restart/anything',
  ];
  for (const pathname of paths) {
    const denied = await get(pathname, 'carl');
    t.is(denied.status, 403, pathname);
    t.deepEqual(errorOf(denied), {
      code: 'permission_denied',
      message: 'permission denied: base.module.read',
      hint: 'ask an administrator for a role that grants base.module.read (ward users grant <user> <role>)',
    });
    t.is((await get(pathname, 'vera')).status, 200, pathname);
    t.is((await call(base, 'GET', pathname)).status, 401, pathname);
  }
  const restart = await call(base, 'POST', '/api/v1/modules/-/restart', { token: await token('vera') });
  t.is(restart.status, 403);
  t.is(errorOf(restart).message, 'permission denied: base.module.restart');
  t.is(restarts(), 0);
});

test('restart: the 202 names this backend and the newest log row; the next backend says the restart is over', async (t) => {
  const { get, base, knex, token: tokenOf, restarts } = await world(t);
  const [newest] = await logIds(knex);
  const answer = await call(base, 'POST', '/api/v1/modules/-/restart', { token: await tokenOf('ada') });
  t.is(answer.status, 202, answer.text);
  const { startId, lastLogId } = answer.body as { startId: string; lastLogId: number };
  t.like(answer.body, { status: 'restarting', lastLogId: newest });
  t.regex(startId, /^[0-9a-f-]{36}$/);

  const same = await get(`/api/v1/modules/-/restart/${startId}`);
  t.is(same.status, 200, same.text);
  t.like(same.body, { restarted: false, startId });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(restarts(), 1);

  // The backend that replaces it: the same database, a new process.
  const next = await startApp(t, knex);
  const { token } = await signIn(next.base, 'ada');
  const over = await call(next.base, 'GET', `/api/v1/modules/-/restart/${startId}`, { token });
  t.is(over.status, 200, over.text);
  const body = over.body as { restarted: boolean; startId: string; startedAt: string };
  t.true(body.restarted);
  t.not(body.startId, startId);
  t.regex(body.startedAt, /Z$/);
  await appendLog(knex, '00000000-0000-4000-8000-000000000003', [
    { module_name: 'patients', operation: 'install', step: 'finalize', status: 'done' },
  ]);
  const since = await call(next.base, 'GET', `/api/v1/modules/-/log?after=${lastLogId}`, { token });
  t.deepEqual(
    (since.body as LogPage).entries.map(
      (entry) => `${entry.operation} ${entry.module_name}: ${entry.step} ${entry.status}`,
    ),
    ['install patients: finalize done'],
  );
});

test('the OpenAPI document lists each read with its permission, response schema and query parameters', async (t) => {
  const { get } = await world(t);
  const doc = (await get('/api/v1/openapi.json')).body as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  for (const path of [
    '/api/v1/modules',
    '/api/v1/modules/-/doctor',
    '/api/v1/modules/-/plan',
    '/api/v1/modules/-/log',
    '/api/v1/modules/-/restart/{startId}',
  ]) {
    const operation = doc.paths[path]?.get;
    t.is(operation?.['x-ward-permission'], 'base.module.read', path);
    const responses = operation?.responses as Record<
      string,
      { content?: Record<string, { schema?: object }> }
    >;
    t.is(typeof responses['200']?.content?.['application/json']?.schema, 'object', path);
  }
  const log = doc.paths['/api/v1/modules/-/log']?.get as {
    parameters: Array<{ name: string; in: string }>;
    responses: Record<string, unknown>;
  };
  t.deepEqual(
    log.parameters.map(({ name, in: where }) => `${where} ${name}`),
    ['query limit', 'query before', 'query after'],
  );
  t.deepEqual(log.responses['400'], { $ref: '#/components/responses/BadRequest' });
  t.deepEqual(
    (doc.paths['/api/v1/modules/-/restart/{startId}']?.get?.parameters as Array<{ name: string }>).map(
      (parameter) => parameter.name,
    ),
    ['startId'],
  );
  const restart = doc.paths['/api/v1/modules/-/restart']?.post as {
    responses: Record<string, { content?: { 'application/json': { schema: { required: string[] } } } }>;
  };
  t.deepEqual(restart.responses['202']?.content?.['application/json'].schema.required, [
    'status',
    'message',
    'startId',
    'lastLogId',
    'replicas',
  ]);
});
