import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { AUTH_MODULES, installedDatabase } from '../helpers/app.ts';
import { FIXTURES, parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';

const modulePaths = (...dirs: string[]) => dirs.map((dir) => path.join(FIXTURES, 'modules', dir)).join(':');

test('list prints NAME VERSION STATE CATEGORY DEPENDS with - for no dependencies', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [{ name: 'base', state: 'installed', version: '1.0.0' }]);
  const run = await ward(['modules', 'list'], { DATABASE_URL: url });
  t.is(run.code, 0, run.stderr);
  t.is(
    run.stdout,
    [
      'NAME              VERSION  STATE        CATEGORY  DEPENDS',
      'appointments      1.2.0    uninstalled  official  patients',
      'base              1.0.0    installed    official  -',
      'documents         1.0.0    uninstalled  official  patients',
      'migration_import  1.2.0    uninstalled  official  patients,appointments,documents',
      'patients          1.3.0    uninstalled  official  base',
      '',
    ].join('\n'),
  );
});

test('list --json prints the rows the table is drawn from, community modules included', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const run = await ward(['modules', 'list', '--json'], {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: modulePaths('community'),
  });
  const entries = parseJson<Array<Record<string, unknown>>>(run);
  t.deepEqual(
    entries.find((entry) => entry.name === 'clinic_portal'),
    {
      name: 'clinic_portal',
      version: '1.2.0',
      state: 'uninstalled',
      category: 'community',
      depends: ['appointments'],
    },
  );
});

test('list shows an orphan row with category missing', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [{ name: 'vanished', state: 'installed', version: '2.0.0' }]);
  const run = await ward(['modules', 'list'], { DATABASE_URL: url });
  t.regex(run.stdout, /^vanished +2\.0\.0 +installed +missing +-$/m);
});

test('info shows version, state, applied revision, last state change and error', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [
    { name: 'patients', state: 'to_install', version: null, error_message: 'seed failed' },
  ]);
  const json = parseJson<Record<string, unknown>>(
    await ward(['modules', 'info', 'patients', '--json'], { DATABASE_URL: url }),
  );
  t.like(json, {
    name: 'patients',
    state: 'to_install',
    version: null,
    diskVersion: '1.3.0',
    category: 'official',
    depends: ['base'],
    removable: false,
    migrationBranch: 'patients',
    appliedRevision: null,
    errorMessage: 'seed failed',
  });
  t.regex(String(json.lastStateChange), /^\d{4}-\d\d-\d\dT/);
  const text = await ward(['modules', 'info', 'patients'], { DATABASE_URL: url });
  t.regex(text.stdout, /^Applied revision: +-$/m);
  t.regex(text.stdout, /^Error: +seed failed$/m);
});

test('info of an unknown module exits 1 and points to list', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const run = await ward(['modules', 'info', 'nosuch'], { DATABASE_URL: url });
  t.is(run.code, 1);
  t.is(
    run.stderr,
    'error: no module named "nosuch" on disk or in the database\nhint: run `ward modules list` to see the modules Ward knows\n',
  );
});

test('status counts modules per state and lists pending and errored ones', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [
    { name: 'base', state: 'installed', version: '0.5.0' },
    { name: 'patients', state: 'to_install', error_message: 'migration failed: boom' },
  ]);
  const json = parseJson<Record<string, unknown>>(
    await ward(['modules', 'status', '--json'], { DATABASE_URL: url }),
  );
  t.deepEqual(json, {
    counts: { installed: 1, uninstalled: 3, to_install: 1, to_upgrade: 0, to_uninstall: 0 },
    pending: [{ name: 'patients', state: 'to_install' }],
    errored: [{ name: 'patients', state: 'to_install', errorMessage: 'migration failed: boom' }],
    upgradable: [{ name: 'base', version: '0.5.0', diskVersion: '1.2.0' }],
  });
  const text = await ward(['modules', 'status'], { DATABASE_URL: url });
  t.regex(text.stdout, /Pending \(applied at the next restart\):\n {2}patients \(to_install\)/);
  t.regex(text.stdout, /Errored:\n {2}patients \(to_install\): migration failed: boom/);
});

test('doctor exits 0 and says so when nothing is wrong', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const run = await ward(['modules', 'doctor'], { DATABASE_URL: url });
  t.is(run.code, 0, run.stdout + run.stderr);
  t.is(run.stdout, 'No issues found.\n');
});

test('doctor reports orphans, missing dependencies, manifest errors and errored modules, exiting 1', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [
    { name: 'vanished', state: 'installed', version: '1.0.0' },
    { name: 'patients', state: 'to_install', error_message: 'migration failed: boom' },
  ]);
  const env = { DATABASE_URL: url, WARD_MODULE_PATHS: modulePaths('broken', 'cycle', 'legacy') };
  const run = await ward(['modules', 'doctor', '--json'], { ...env });
  t.is(run.code, 1);
  const report = parseJson<{
    ok: boolean;
    orphans: Array<{ module: string; state: string; hint: string }>;
    missingDependencies: unknown[];
    manifestErrors: Array<{ module: string | null; message: string }>;
    errored: unknown[];
  }>(run);
  t.false(report.ok);
  t.deepEqual(
    report.orphans.map(({ module, state }) => ({ module, state })),
    [{ module: 'vanished', state: 'installed' }],
  );
  t.regex(
    report.orphans[0]?.hint ?? '',
    /^its code was not found with WARD_MODULE_PATHS=.* \(from environment\)/,
  );
  t.deepEqual(report.errored, [
    { module: 'patients', state: 'to_install', errorMessage: 'migration failed: boom' },
  ]);
  t.true(report.manifestErrors.some((e) => e.message === 'dependency cycle: cycle_a -> cycle_b -> cycle_a'));
  t.true(report.manifestErrors.some((e) => e.module === 'broken_schema'));
  const text = await ward(['modules', 'doctor'], env);
  t.is(text.code, 1);
  t.regex(text.stdout, /^Orphans \(in the database, missing from disk\):\n {2}vanished \(installed\)$/m);
  t.regex(text.stdout, /^Manifest errors:$/m);
  t.regex(text.stdout, /^Errored modules:\n {2}patients \(to_install\): migration failed: boom$/m);
});

test('doctor reports a dependency that is not on disk', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const dir = await scratchDir();
  const module = path.join(dir, 'lonely');
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(module);
  await writeFile(
    path.join(module, 'manifest.json'),
    JSON.stringify({ name: 'lonely', version: '1.0.0', depends: ['nowhere'] }),
  );
  const run = await ward(['modules', 'doctor'], { DATABASE_URL: url, WARD_MODULE_PATHS: dir });
  t.is(run.code, 1);
  t.regex(run.stdout, /Missing dependencies:\n {2}lonely depends on nowhere, not found/);
});

test('doctor reports the tables of installed modules that are gone from the database', async (t) => {
  const { url, knex } = await installedDatabase(t);
  await knex.raw('drop table base_session');
  const env = { DATABASE_URL: url, WARD_MODULE_PATHS: AUTH_MODULES };
  const run = await ward(['modules', 'doctor', '--json'], env);
  t.is(run.code, 1);
  t.deepEqual(parseJson<{ missingTables: unknown }>(run).missingTables, [
    { module: 'base', table: 'base_session' },
  ]);
  t.regex(
    (await ward(['modules', 'doctor'], env)).stdout,
    /^Missing tables \(installed modules, tables gone from the database; restore it from a backup\):\n {2}base: base_session$/m,
  );
});

test('doctor reports a malformed grants file with its line and column, and a bad setting, exiting 1', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const storage = await scratchDir();
  const grants = path.join(storage, 'grants.json');
  await writeFile(grants, '{\n  "roles": {\n    "ops": ["x.y.read",]\n  }\n}\n');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, PORT: 'eighty' };
  const run = await ward(['modules', 'doctor', '--json'], env);
  t.is(run.code, 1);
  t.deepEqual(
    parseJson<{ configuration: Array<{ code: string; message: string }> }>(run).configuration.map(
      ({ code, message }) => ({ code, message }),
    ),
    [
      { code: 'invalid_setting', message: 'PORT="eighty" is not a TCP port' },
      {
        code: 'invalid_grants_file',
        message: `${grants}: is not valid JSON: Unexpected token ']' at line 3, column 24`,
      },
    ],
  );
  const text = await ward(['modules', 'doctor'], env);
  t.is(text.code, 1);
  t.regex(
    text.stdout,
    /^Settings and grants file \(a backend refuses to start\):\n {2}PORT="eighty" is not a TCP port\n {4}hint: give a number/m,
  );
  t.regex(
    text.stdout,
    /^ {2}.*grants\.json: is not valid JSON: .* at line 3, column 24\n {4}hint: fix the file/m,
  );
});

test('plan and restart show what the next restart applies', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const env = { DATABASE_URL: url };
  t.is(
    (await ward(['modules', 'plan'], env)).stdout,
    'Nothing is pending; a restart applies no module changes.\n',
  );
  await setRows(knex, [
    { name: 'base', state: 'installed', version: '1.0.0' },
    { name: 'patients', state: 'to_install' },
  ]);
  const plan = await ward(['modules', 'plan'], env);
  t.regex(plan.stdout, /^ {2}\+ patients {2}1\.3\.0 {2}pending$/m);
  t.regex(plan.stdout, /Plan: 1 to install, 0 to upgrade, 0 to uninstall\./);
  const restart = await ward(['modules', 'restart'], env);
  t.is(restart.code, 0);
  t.regex(restart.stdout, /^ {2}\+ patients {2}1\.3\.0 {2}pending$/m);
  t.regex(restart.stdout, /No backend is running, so nothing was restarted\. Start it to apply the plan:/);
  t.like(parseJson(await ward(['modules', 'plan', '--json'], env)), {
    summary: { install: 1, upgrade: 0, uninstall: 0 },
  });
});

test('sync-frontend writes the layer path of installed modules that ship one, and leaves out an inactive one', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const frontend = await scratchDir();
  const env = { DATABASE_URL: url, WARD_MODULE_PATHS: modulePaths('community'), WARD_FRONTEND_DIR: frontend };
  const layers = async () =>
    (
      JSON.parse(await readFile(path.join(frontend, 'modules.json'), 'utf8')) as {
        modules: Array<{ name: string }>;
      }
    ).modules;
  const dependencies = ['base', 'patients', 'appointments'].map((name) => ({
    name,
    state: 'installed' as const,
    version: '1.0.0',
  }));
  await setRows(knex, [...dependencies, { name: 'clinic_portal', state: 'to_install' }]);
  const first = await ward(['modules', 'sync-frontend', '--json'], env);
  t.is(first.code, 0, first.stderr);
  t.false((await layers()).some((module) => module.name === 'clinic_portal'));
  await setRows(knex, [...dependencies, { name: 'clinic_portal', state: 'installed', version: '1.2.0' }]);
  const second = await ward(['modules', 'sync-frontend'], env);
  t.regex(second.stdout, /^Wrote .*modules\.json \(4 module layer\(s\)\)/);
  t.regex(
    second.stdout,
    /^Next step: reload the open pages; the shell loads the layers modules\.json lists at each page load\.$/m,
  );
  t.deepEqual(
    (await layers()).find((module) => module.name === 'clinic_portal'),
    {
      name: 'clinic_portal',
      version: '1.2.0',
      layer: 'test/fixtures/modules/community/clinic_portal/frontend/index.js',
      url: '/layers/clinic_portal/frontend/index.js',
    },
  );
  const third = await ward(['modules', 'sync-frontend'], env);
  t.regex(third.stdout, /^Unchanged:/);
  await knex('core_module').where({ name: 'appointments' }).update({ state: 'uninstalled' });
  await ward(['modules', 'sync-frontend'], env);
  t.deepEqual(
    (await layers()).map((module) => module.name),
    ['base', 'patients'],
    'clinic_portal is inactive without appointments',
  );
});
