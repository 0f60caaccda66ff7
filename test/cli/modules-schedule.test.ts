import path from 'node:path';
import test from 'ava';
import { FIXTURES, parseJson, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows, snapshot } from '../helpers/rows.ts';

const MODULE_PATHS = ['legacy', 'community'].map((dir) => path.join(FIXTURES, 'modules', dir)).join(':');

async function setup(t: Parameters<typeof testDatabase>[0]) {
  const db = await testDatabase(t, { migrated: true });
  const env = { DATABASE_URL: db.url, WARD_MODULE_PATHS: MODULE_PATHS };
  return { ...db, env };
}

const states = async (knex: Awaited<ReturnType<typeof setup>>['knex']) =>
  Object.fromEntries(
    ((await knex('core_module').select('name', 'state')) as Array<{ name: string; state: string }>).map(
      (r) => [r.name, r.state],
    ),
  );

test('install schedules the module and its dependency chain, printing the plan', async (t) => {
  const { knex, env } = await setup(t);
  const run = await ward(['modules', 'install', 'appointments'], env);
  t.is(run.code, 0, run.stderr);
  t.is(
    run.stdout,
    [
      'Ward will perform the following actions at the next restart:',
      '',
      '  + base          1.2.0  dependency of patients',
      '  + patients      1.3.0  dependency of appointments',
      '  + appointments  1.2.0  requested',
      '',
      'Plan: 3 to install, 0 to upgrade, 0 to uninstall.',
      '',
      'Scheduled. Next step: restart the backend to apply it (`ward modules restart`, POST /api/v1/modules/-/restart, or restart the backend container).',
      '',
    ].join('\n'),
  );
  t.deepEqual(await states(knex), { base: 'to_install', patients: 'to_install', appointments: 'to_install' });
  const log = await knex('core_module_operation_log').orderBy('id');
  t.deepEqual(
    log.map((row) => [row.module_name, row.operation, row.step, row.status]),
    [
      ['base', 'install', 'schedule', 'done'],
      ['patients', 'install', 'schedule', 'done'],
      ['appointments', 'install', 'schedule', 'done'],
    ],
  );
  t.is(new Set(log.map((row) => row.run_id)).size, 1, 'one run id for one command');
});

test('second install does no harm and says the module is already scheduled', async (t) => {
  const { knex, env } = await setup(t);
  await ward(['modules', 'install', 'patients'], env);
  const before = await snapshot(knex);
  const run = await ward(['modules', 'install', 'patients'], env);
  t.is(run.code, 0);
  t.is(
    run.stdout,
    'patients is already scheduled (to_install); it is applied at the next restart; nothing to install.\n',
  );
  t.deepEqual(await snapshot(knex), before);
});

test('install of an installed module is a no-op that says so', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'base', state: 'installed', version: '1.0.0' }]);
  const run = await ward(['modules', 'install', 'base', '--json'], env);
  t.is(run.code, 0);
  const result = parseJson<{ scheduled: boolean; plan: { unchanged: unknown[] } }>(run);
  t.false(result.scheduled);
  t.deepEqual(result.plan.unchanged, [{ module: 'base', state: 'installed' }]);
});

test('--dry-run prints the plan and writes nothing', async (t) => {
  const { knex, env } = await setup(t);
  const before = await snapshot(knex);
  const run = await ward(['modules', 'install', 'appointments', '--dry-run'], env);
  t.is(run.code, 0);
  t.regex(run.stdout, /^Ward would perform the following actions/);
  t.regex(run.stdout, /Plan: 3 to install, 0 to upgrade, 0 to uninstall\./);
  t.regex(run.stdout, /Dry run: nothing was scheduled\./);
  t.deepEqual(await snapshot(knex), before);
});

test('install --json prints the plan object with a summary', async (t) => {
  const { env } = await setup(t);
  const result = parseJson<Record<string, unknown>>(
    await ward(['modules', 'install', 'patients', '--json'], env),
  );
  t.like(result, { scheduled: true, dryRun: false, summary: { install: 2, upgrade: 0, uninstall: 0 } });
  t.deepEqual((result.plan as { actions: unknown[] }).actions[0], {
    kind: 'install',
    module: 'base',
    fromVersion: null,
    toVersion: '1.2.0',
    reason: { kind: 'dependency', of: 'patients' },
  });
});

test('upgrade at equal versions exits 1 saying the module is already at the declared version', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'base', state: 'installed', version: '1.2.0' }]);
  const before = await snapshot(knex);
  const run = await ward(['modules', 'upgrade', 'base'], env);
  t.is(run.code, 1);
  t.regex(run.stderr, /base is already at the declared version 1\.2\.0/);
  t.deepEqual(await snapshot(knex), before);
});

test('upgrade schedules to_upgrade when the disk version differs', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'base', state: 'installed', version: '0.9.0' }]);
  const run = await ward(['modules', 'upgrade', 'base'], env);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /~ base {2}0\.9\.0 -> 1\.2\.0 {2}requested/);
  t.regex(run.stdout, /Plan: 0 to install, 1 to upgrade, 0 to uninstall\./);
  t.is((await states(knex)).base, 'to_upgrade');
});

test('upgrade of a module that is not installed is refused with the install command as the fix', async (t) => {
  const { env } = await setup(t);
  const run = await ward(['modules', 'upgrade', 'patients'], env);
  t.is(run.code, 1);
  t.regex(run.stderr, /ward modules install patients/);
});

test('uninstall of a non-removable module is blocked unless --force', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'base', state: 'installed', version: '1.0.0' }]);
  const before = await snapshot(knex);
  const refused = await ward(['modules', 'uninstall', 'base'], env);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /base is not removable/);
  t.regex(refused.stderr, /--force/);
  t.deepEqual(await snapshot(knex), before);
  const forced = await ward(['modules', 'uninstall', 'base', '--force'], env);
  t.is(forced.code, 0, forced.stderr);
  t.regex(forced.stdout, /- base {2}1\.0\.0 {2}requested/);
  t.is((await states(knex)).base, 'to_uninstall');
});

test('uninstall of a legacy module names the missing branch and --force does not override', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [
    { name: 'base', state: 'installed', version: '1.0.0' },
    { name: 'patients', state: 'installed', version: '1.1.0' },
    { name: 'legacy_reports', state: 'installed', version: '0.9.0' },
  ]);
  const before = await snapshot(knex);
  for (const args of [[], ['--force'], ['--force', '--cascade']]) {
    const run = await ward(['modules', 'uninstall', 'legacy_reports', ...args], env);
    t.is(run.code, 1);
    t.regex(run.stderr, /legacy_reports has no migration branch "legacy_reports"/);
  }
  t.deepEqual(await snapshot(knex), before);
});

test('uninstall with an installed dependent is blocked with "required by"; --cascade takes it along, --force leaves it inactive', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(
    knex,
    ['base', 'patients', 'appointments', 'clinic_portal', 'portal_reminders'].map((name) => ({
      name,
      state: 'installed' as const,
      version: '0.0.1',
    })),
  );
  const before = await snapshot(knex);
  const refused = await ward(['modules', 'uninstall', 'clinic_portal', '--json'], env);
  t.is(refused.code, 1);
  t.deepEqual(parseJson<{ error: unknown }>(refused).error, {
    code: 'required_by',
    message: 'clinic_portal is required by portal_reminders',
    hint: 'uninstall portal_reminders first, pass --cascade to uninstall them as well, or pass --force to uninstall only clinic_portal and leave it installed but inactive until clinic_portal is installed again',
  });
  t.deepEqual(await snapshot(knex), before);
  const cascaded = await ward(
    ['modules', 'uninstall', 'clinic_portal', '--cascade', '--dry-run', '--json'],
    env,
  );
  t.is(cascaded.code, 0, cascaded.stderr);
  const result = parseJson<{ plan: { actions: Array<{ module: string }> } }>(cascaded);
  t.deepEqual(
    result.plan.actions.map((a) => a.module),
    ['portal_reminders', 'clinic_portal'],
  );
  const forced = await ward(['modules', 'uninstall', 'clinic_portal', '--force', '--json'], env);
  t.is(forced.code, 0, forced.stderr);
  t.like(parseJson<{ plan: unknown }>(forced).plan, {
    actions: [{ kind: 'uninstall', module: 'clinic_portal', reason: { kind: 'requested' } }],
    inactive: [{ module: 'portal_reminders', dependency: 'clinic_portal' }],
  });
  t.like(await states(knex), { clinic_portal: 'to_uninstall', portal_reminders: 'installed' });
});

test('uninstall --cascade schedules installed dependents first', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [
    { name: 'base', state: 'installed', version: '1.0.0' },
    { name: 'patients', state: 'installed', version: '1.1.0' },
    { name: 'appointments', state: 'installed', version: '1.0.0' },
    { name: 'clinic_portal', state: 'installed', version: '1.2.0' },
  ]);
  const run = await ward(['modules', 'uninstall', 'patients', '--cascade', '--force'], env);
  t.is(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n').filter((line) => line.startsWith('  - '));
  t.deepEqual(
    lines.map((line) => line.trim().split(/\s+/)[1]),
    ['clinic_portal', 'appointments', 'patients'],
  );
  t.regex(run.stdout, /Plan: 0 to install, 0 to upgrade, 3 to uninstall\./);
});

test('orphan marks a module whose code is gone as uninstalled and runs no step', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'vanished', state: 'installed', version: '2.0.0' }]);
  const run = await ward(['modules', 'orphan', 'vanished'], env);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /vanished is now uninstalled/);
  t.is((await states(knex)).vanished, 'uninstalled');
  const again = await ward(['modules', 'orphan', 'vanished'], env);
  t.is(again.code, 0);
  t.regex(again.stdout, /already uninstalled/);
});

test('orphan refuses a module whose code is on disk and points to uninstall', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'base', state: 'installed', version: '1.0.0' }]);
  const before = await snapshot(knex);
  const run = await ward(['modules', 'orphan', 'base'], env);
  t.is(run.code, 1);
  t.regex(run.stderr, /base is on disk/);
  t.regex(run.stderr, /ward modules uninstall base/);
  t.deepEqual(await snapshot(knex), before);
});

test('a community npm package declared by the backend is listed and installs with its dependencies', async (t) => {
  const { knex, env } = await setup(t);
  const withPackages = { ...env, WARD_PACKAGE_ROOT: path.join(FIXTURES, 'app') };
  const list = parseJson<Array<{ name: string; category: string }>>(
    await ward(['modules', 'list', '--json'], withPackages),
  );
  t.like(
    list.find((entry) => entry.name === 'billing'),
    { category: 'community' },
  );
  const run = await ward(['modules', 'install', 'billing'], withPackages);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /\+ billing {3}3\.1\.0 {2}requested/);
  t.deepEqual(await states(knex), { base: 'to_install', patients: 'to_install', billing: 'to_install' });
});
