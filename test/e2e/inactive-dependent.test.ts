/**
 * `uninstall --force` of a module another installed module depends on, end to end with the real
 * `bin/ward` and real backends: only the named module goes, the plan names the dependent it leaves,
 * and after the restart the dependent is inactive (installed; its row, its routes' 503, `/active`,
 * modules.json, doctor, list, info and status all say so) until the dependency is installed again
 * and the backend restarted, with no other step.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { ROOT } from '../../src/config.ts';
import { FIXTURES, parseJson, scratchDir, ward, type WardEnv } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { restart, serve } from '../helpers/serve.ts';

const DEPENDENTS = path.join(FIXTURES, 'modules', 'dependents');

const INACTIVE_MESSAGE = 'vitals_alerts is inactive: it depends on vitals, which is not installed';
const INACTIVE_HINT =
  'install vitals (`ward modules install vitals`, then restart) to bring vitals_alerts back, or uninstall vitals_alerts (`ward modules uninstall vitals_alerts`)';

async function must(args: string[], env: WardEnv): Promise<string> {
  const run = await ward(args, env);
  if (run.code !== 0)
    throw new Error(`ward ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return run.stdout.trim();
}

async function get(base: string, token: string, pathname: string) {
  const response = await fetch(`${base}/api/v1${pathname}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface Active {
  modules: Array<{ name: string; navigation: Array<{ path: string }>; frontend: string | null }>;
}

/** The output docs/cli.md shows under `command` in a text block. */
async function documentedSample(command: string): Promise<string> {
  const docs = await readFile(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  const start = docs.indexOf(`${command}\n`);
  if (start < 0) throw new Error(`docs/cli.md shows no "${command}"`);
  const from = start + command.length + 1;
  return docs.slice(from, docs.indexOf('```', from)).trim();
}

const row = async (knex: Knex, name: string) =>
  knex('core_module').where({ name }).first('state', 'error_message');

test('uninstall --force leaves a dependent inactive until its dependency is installed again and the backend restarts', async (t) => {
  const { knex, url } = await testDatabase(t);
  const storage = await scratchDir('ward-inactive-');
  const frontend = await scratchDir('ward-inactive-frontend-');
  const env: WardEnv = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: storage,
    WARD_MODULE_PATHS: DEPENDENTS,
    WARD_FRONTEND_DIR: frontend,
  };
  await restart(env);
  await must(['modules', 'install', 'vitals_alerts'], env);
  await restart(env);
  await must(['users', 'create', 'chief', '--role', 'admin'], env);
  const token = await must(['tokens', 'create', '--user', 'chief'], env);

  // Without --force: refused, and the hint offers --force.
  const refused = await ward(['modules', 'uninstall', 'vitals', '--json'], env);
  t.is(refused.code, 1);
  t.deepEqual(parseJson<{ error: unknown }>(refused).error, {
    code: 'required_by',
    message: 'vitals is required by vitals_alerts',
    hint: 'uninstall vitals_alerts first, pass --cascade to uninstall them as well, or pass --force to uninstall only vitals and leave it installed but inactive until vitals is installed again',
  });

  // With --force: only vitals is scheduled, and the plan names the dependent it leaves.
  const dryRun = parseJson<{ plan: { actions: Array<{ module: string }>; inactive: unknown } }>(
    await ward(['modules', 'uninstall', 'vitals', '--force', '--dry-run', '--json'], env),
  );
  t.deepEqual(
    dryRun.plan.actions.map((action) => action.module),
    ['vitals'],
  );
  t.deepEqual(dryRun.plan.inactive, [{ module: 'vitals_alerts', dependency: 'vitals' }]);
  const planned = await must(['modules', 'uninstall', 'vitals', '--force'], env);
  t.is(
    planned,
    await documentedSample('$ ward modules uninstall vitals --force'),
    'docs/cli.md shows this output',
  );
  t.regex(planned, /^ {2}- vitals {2}1\.0\.0 {2}requested$/m);
  t.regex(planned, /^ {2}! vitals_alerts {2}left without vitals: stays installed but inactive /m);
  t.like(await row(knex, 'vitals'), { state: 'to_uninstall' });
  t.like(await row(knex, 'vitals_alerts'), { state: 'installed', error_message: null });
  const before = await ward(['modules', 'doctor', '--json'], env);
  t.is(before.code, 1, 'doctor warns before the restart');
  t.like(parseJson<{ unsatisfiedDependencies: unknown[] }>(before).unsatisfiedDependencies, [
    {
      module: 'vitals_alerts',
      dependency: 'vitals',
      dependencyState: 'to_uninstall',
      hint: 'vitals_alerts is inactive from the next restart: run `ward modules install vitals` (this cancels its pending uninstall), or uninstall vitals_alerts',
    },
  ]);

  const backend = await serve(env);
  t.teardown(() => backend.stop());
  t.like(await row(knex, 'vitals'), { state: 'uninstalled', error_message: null });
  t.deepEqual(await row(knex, 'vitals_alerts'), {
    state: 'installed',
    error_message: `${INACTIVE_MESSAGE}; ${INACTIVE_HINT}`,
  });
  t.false(await knex.schema.hasTable('vitals_reading'), "vitals' tables are gone");
  t.true(await knex.schema.hasTable('vitals_alerts_rule'), "vitals_alerts' tables stay");

  // Its routes answer 503 with the same text, in Ward's error shape.
  const rules = await get(backend.base, token, '/vitals_alerts/rules');
  t.is(rules.status, 503);
  t.deepEqual(rules.body, {
    error: { code: 'module_inactive', message: INACTIVE_MESSAGE, hint: INACTIVE_HINT },
  });
  t.is((await get(backend.base, token, '/vitals/readings')).status, 404, 'vitals is uninstalled');

  // `/active` and modules.json leave out its navigation and layer.
  const active = (await get(backend.base, token, '/modules/-/active')).body as unknown as Active;
  t.false(active.modules.some((module) => module.name === 'vitals_alerts' || module.name === 'vitals'));
  t.false(
    active.modules.some((module) => module.navigation.some((entry) => entry.path.startsWith('/vitals'))),
  );
  const layers = JSON.parse(await readFile(path.join(frontend, 'modules.json'), 'utf8')) as {
    modules: Array<{ name: string }>;
  };
  t.false(layers.modules.some((module) => module.name === 'vitals_alerts'));

  // doctor lists it under missing dependencies, once, and exits non-zero; the API's doctor agrees.
  const doctor = await ward(['modules', 'doctor', '--json'], env);
  t.is(doctor.code, 1);
  const report = parseJson<{ unsatisfiedDependencies: unknown[]; errored: unknown[] }>(doctor);
  t.deepEqual(report.unsatisfiedDependencies, [
    {
      module: 'vitals_alerts',
      state: 'installed',
      dependency: 'vitals',
      dependencyState: 'uninstalled',
      hint: 'vitals_alerts is inactive until vitals is installed: run `ward modules install vitals` and restart, or uninstall vitals_alerts',
    },
  ]);
  t.deepEqual(report.errored, []);
  const apiDoctor = (await get(backend.base, token, '/modules/-/doctor')).body;
  t.deepEqual(apiDoctor.unsatisfiedDependencies, report.unsatisfiedDependencies);
  t.deepEqual(apiDoctor.errored, []);
  const text = await ward(['modules', 'doctor'], env);
  t.is(text.code, 1);
  t.regex(
    text.stdout,
    /^Missing dependencies:\n {2}vitals_alerts \(installed\) depends on vitals, which is uninstalled: vitals_alerts is inactive until vitals is installed: run `ward modules install vitals` and restart, or uninstall vitals_alerts$/m,
  );

  // list, info and status: installed, with the reason it is inactive.
  const list = parseJson<Array<{ name: string; state: string }>>(
    await ward(['modules', 'list', '--json'], env),
  );
  t.like(
    list.find((entry) => entry.name === 'vitals_alerts'),
    { state: 'installed' },
  );
  t.like(
    list.find((entry) => entry.name === 'vitals'),
    { state: 'uninstalled' },
  );
  t.like(parseJson(await ward(['modules', 'info', 'vitals_alerts', '--json'], env)), {
    state: 'installed',
    errorMessage: `${INACTIVE_MESSAGE}; ${INACTIVE_HINT}`,
  });
  t.regex(await must(['modules', 'info', 'vitals_alerts'], env), /^Error: +vitals_alerts is inactive: /m);
  t.deepEqual(parseJson<{ errored: unknown[] }>(await ward(['modules', 'status', '--json'], env)).errored, [
    { name: 'vitals_alerts', state: 'installed', errorMessage: `${INACTIVE_MESSAGE}; ${INACTIVE_HINT}` },
  ]);
  const adminList = (await get(backend.base, token, '/modules')).body as {
    modules: Array<{ name: string; errorMessage: string | null }>;
  };
  t.is(
    adminList.modules.find((module) => module.name === 'vitals_alerts')?.errorMessage,
    `${INACTIVE_MESSAGE}; ${INACTIVE_HINT}`,
  );
  await backend.stop();

  // Installing vitals again and restarting brings vitals_alerts back, with no other step.
  await must(['modules', 'install', 'vitals'], env);
  const again = await serve(env);
  t.teardown(() => again.stop());
  t.deepEqual(await row(knex, 'vitals_alerts'), { state: 'installed', error_message: null });
  t.like(await row(knex, 'vitals'), { state: 'installed', error_message: null });
  const back = await get(again.base, token, '/vitals_alerts/rules');
  t.is(back.status, 200);
  t.deepEqual(back.body, { items: [] });
  const activeAgain = (await get(again.base, token, '/modules/-/active')).body as unknown as Active;
  t.like(
    activeAgain.modules.find((module) => module.name === 'vitals_alerts'),
    { navigation: [{ path: '/vitals-alerts' }] },
  );
  const healthy = parseJson<{ unsatisfiedDependencies: unknown[]; errored: unknown[] }>(
    await ward(['modules', 'doctor', '--json'], env),
  );
  t.deepEqual([healthy.unsatisfiedDependencies, healthy.errored], [[], []]);
});
