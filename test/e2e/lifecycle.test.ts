/**
 * The module lifecycle's transition table, row by row, end to end: `bin/ward` schedules, a real `ward serve`
 * restart applies, and the database and storage are checked afterwards.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { FIXTURES, parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { restart, serveUntilExit } from '../helpers/serve.ts';

const fixtures = (...dirs: string[]) => dirs.map((dir) => path.join(FIXTURES, 'modules', dir)).join(':');
const V1 = fixtures('lifecycle-v1');
const V2 = fixtures('lifecycle-v2');

async function setup(t: ExecutionContext, modulePaths = V1) {
  const db = await testDatabase(t);
  const storage = await scratchDir('ward-storage-');
  const env = { DATABASE_URL: db.url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: modulePaths };
  // The first restart creates the core schema, as `ward serve` does on a fresh database.
  await restart(env);
  return { ...db, storage, env };
}

type Knex = Awaited<ReturnType<typeof setup>>['knex'];

const moduleRow = (knex: Knex, name: string) =>
  knex('core_module').where({ name }).first('state', 'version', 'error_message', 'installed_at');
const tableExists = (knex: Knex, table: string) => knex.schema.hasTable(table);
const branch = async (knex: Knex, module: string) =>
  (await knex('knex_migrations')
    .whereRaw('starts_with(name, ?)', [`${module}/`])
    .orderBy('id')
    .pluck('name')) as string[];

async function installLab(env: Record<string, string>) {
  const scheduled = await ward(['modules', 'install', 'lab'], env);
  if (scheduled.code !== 0) throw new Error(scheduled.stderr);
  await restart(env);
}

test('install then restart: migrations, seeds and post_install run and the module is installed', async (t) => {
  const { knex, env } = await setup(t);
  await installLab(env);
  for (const [name, version] of [
    ['base', '1.2.0'],
    ['patients', '1.3.0'],
    ['lab', '1.0.0'],
  ] as const)
    t.like(await moduleRow(knex, name), { state: 'installed', version, error_message: null });
  t.truthy((await moduleRow(knex, 'lab')).installed_at);
  t.true(await tableExists(knex, 'lab_result'));
  t.deepEqual(await knex('lab_test').orderBy('code').pluck('code'), ['CUSTOM', 'GLU', 'HBA1C', 'OLD']);
  t.deepEqual(await knex('lab_event').pluck('kind'), ['post_install 1.0.0']);
  t.deepEqual(
    await knex('core_external_id').where({ module_name: 'lab' }).orderBy('xml_id').pluck('xml_id'),
    ['test_custom', 'test_glucose', 'test_hba1c', 'test_legacy'],
  );
  t.deepEqual(
    await knex('core_module_table').where({ module_name: 'lab' }).orderBy('table_name').pluck('table_name'),
    ['lab_event', 'lab_result', 'lab_test'],
  );
  const steps = await knex('core_module_operation_log')
    .where({ module_name: 'lab', status: 'done' })
    .orderBy('id')
    .pluck('step');
  t.deepEqual(steps, ['schedule', 'migrate', 'seed', 'post_install', 'finalize']);
  const info = parseJson<{ appliedRevision: string }>(await ward(['modules', 'info', 'lab', '--json'], env));
  t.is(info.appliedRevision, '20260401000000_create_lab_tables');
  t.is(
    (await ward(['modules', 'plan'], env)).stdout,
    'Nothing is pending; a restart applies no module changes.\n',
  );
});

test('upgrade then restart: new dependency first, new migrations, seeds re-applied, post_upgrade(from)', async (t) => {
  const { knex, env } = await setup(t);
  await installLab(env);
  await knex('lab_test').where({ code: 'CUSTOM' }).update({ name: 'Renamed by the clinic' });
  const v2 = { ...env, WARD_MODULE_PATHS: V2 };
  const same = await ward(['modules', 'upgrade', 'lab'], env);
  t.is(same.code, 1);
  t.regex(same.stderr, /lab is already at the declared version 1\.0\.0/);
  const scheduled = await ward(['modules', 'upgrade', 'lab'], v2);
  t.is(scheduled.code, 0, scheduled.stderr);
  t.regex(scheduled.stdout, /\+ lab_units {2}1\.0\.0 +new dependency of upgraded lab/);
  t.regex(scheduled.stdout, /~ lab {8}1\.0\.0 -> 1\.1\.0 {2}requested/);
  await restart(v2);
  t.like(await moduleRow(knex, 'lab'), { state: 'installed', version: '1.1.0', error_message: null });
  t.like(await moduleRow(knex, 'lab_units'), { state: 'installed', version: '1.0.0' });
  t.deepEqual(await branch(knex, 'lab'), [
    'lab/20260401000000_create_lab_tables',
    'lab/20260501000000_add_lab_test_unit',
  ]);
  const tests = await knex('lab_test').orderBy('code').select('code', 'name', 'unit_id');
  const unit = await knex('lab_units_unit').where({ symbol: 'mmol/L' }).first('id');
  t.deepEqual(tests, [
    { code: 'CUSTOM', name: 'Renamed by the clinic', unit_id: null },
    { code: 'FER', name: 'Ferritin', unit_id: null },
    { code: 'GLU', name: 'Glucose (fasting)', unit_id: unit.id },
    { code: 'HBA1C', name: 'HbA1c', unit_id: null },
  ]);
  t.deepEqual(await knex('lab_event').orderBy('id').pluck('kind'), [
    'post_install 1.0.0',
    'post_upgrade from 1.0.0 to 1.1.0',
  ]);
});

test('uninstall then restart: check, backup, hook, purge, branch downgraded to base, uninstalled', async (t) => {
  const { knex, env, storage } = await setup(t);
  await installLab(env);
  const patient = await knex('patients_patient')
    .insert({ mrn: 'MRN-1', family_name: "O'Brien", given_name: 'Zoë' })
    .returning('id');
  await knex('lab_result').insert({ test_id: 1, patient_id: patient[0].id, value: 'a\\b "quoted"' });
  const scheduled = await ward(['modules', 'uninstall', 'lab'], env);
  t.is(scheduled.code, 0, scheduled.stderr);
  await restart(env);
  t.like(await moduleRow(knex, 'lab'), { state: 'uninstalled', version: null, error_message: null });
  for (const table of ['lab_test', 'lab_result', 'lab_event']) t.false(await tableExists(knex, table));
  t.deepEqual(await branch(knex, 'lab'), []);
  t.deepEqual(
    await branch(knex, 'patients'),
    [
      'patients/20260101000100_create_patients_patient',
      'patients/20260301000000_add_patients_details',
      'patients/20261124000000_normalise_patients_text',
      'patients/20261127000000_add_patients_search',
      'patients/20261128000000_add_patients_name_order',
    ],
    'another module’s branch is untouched',
  );
  t.is(
    await knex('core_external_id')
      .where({ module_name: 'lab' })
      .count('* as n')
      .first()
      .then((r) => Number(r?.n)),
    0,
  );
  t.is(
    await knex('core_module_table')
      .where({ module_name: 'lab' })
      .count('* as n')
      .first()
      .then((r) => Number(r?.n)),
    0,
  );
  t.is(await readFile(path.join(storage, 'lab-uninstalled.txt'), 'utf8'), 'events 1\n');
  const backups = await readdir(path.join(storage, 'backups'));
  t.is(backups.length, 1);
  t.regex(backups[0] as string, /^module_lab_\d{8}T\d{6}Z\.sql$/);
  const sql = await readFile(path.join(storage, 'backups', backups[0] as string), 'utf8');
  t.regex(sql, /INSERT INTO "lab_result"/);
  t.true(sql.indexOf('INSERT INTO "lab_test"') < sql.indexOf('INSERT INTO "lab_result"'), 'parents first');
  t.deepEqual(
    await knex('core_module_operation_log')
      .where({ module_name: 'lab', operation: 'uninstall', status: 'done' })
      .orderBy('id')
      .pluck('step'),
    ['schedule', 'check', 'backup', 'uninstall_hook', 'purge', 'downgrade', 'finalize'],
  );
});

async function uninstallAndReinstall(t: ExecutionContext) {
  const { knex, env, storage } = await setup(t);
  await installLab(env);
  const [patient] = await knex('patients_patient')
    .insert({ mrn: 'MRN-2', family_name: 'Ng', given_name: 'Al' })
    .returning('id');
  await knex('lab_result').insert({ test_id: 2, patient_id: patient.id, value: '7.1' });
  await knex('lab_test').where({ code: 'CUSTOM' }).update({ name: 'Renamed by the clinic' });
  const before = {
    results: await knex('lab_result').orderBy('id').select(),
    tests: await knex('lab_test').orderBy('id').select(),
    tracking: await knex('core_external_id')
      .where({ module_name: 'lab' })
      .orderBy('xml_id')
      .select('xml_id', 'record_id', 'noupdate'),
  };
  await ward(['modules', 'uninstall', 'lab'], env);
  await restart(env);
  await installLab(env);
  t.deepEqual(await knex('lab_result').select(), [], 'the reinstall starts empty');
  const file = path.join(storage, 'backups', (await readdir(path.join(storage, 'backups')))[0] as string);
  const after = async () => ({
    results: await knex('lab_result').orderBy('id').select(),
    tests: await knex('lab_test').orderBy('id').select(),
    tracking: await knex('core_external_id')
      .where({ module_name: 'lab' })
      .orderBy('xml_id')
      .select('xml_id', 'record_id', 'noupdate'),
  });
  return { knex, env, file, before, after };
}

test('reinstall, then `ward modules restore`: rows and seed tracking are as they were', async (t) => {
  const { env, before, after } = await uninstallAndReinstall(t);
  const restored = await ward(['modules', 'restore', 'lab'], env);
  t.is(restored.code, 0, restored.stderr);
  t.regex(restored.stdout, /^ {2}lab_result: 1 row$/m);
  t.deepEqual(await after(), before);
});

test("restore refuses a backup of another module, or one that would reset another module's seed records, and changes nothing", async (t) => {
  const { knex, env, file } = await uninstallAndReinstall(t);
  const state = async () => ({
    patients: await knex('patients_patient').orderBy('id').select(),
    lab: await knex('lab_result').orderBy('id').select(),
    tracking: await knex('core_external_id').orderBy('id').select(),
  });
  const crafted = path.join(path.dirname(file), 'crafted.sql');
  const text = await readFile(file, 'utf8');
  const cases = [
    {
      args: ['modules', 'restore', 'patients', '--file', file],
      message: /would restore "lab_event", "lab_result", "lab_test", which patients does not own/,
      hint: /ward modules restore lab --file/,
    },
    {
      args: ['modules', 'restore', 'lab', '--file', crafted],
      write: text.replace("module_name = 'lab';", "module_name = 'patients';"),
      message: /would restore the seed records of patients, which lab does not own/,
    },
    {
      args: ['modules', 'restore', 'lab', '--file', crafted],
      write: text
        .split('\n')
        .map((line) =>
          line.startsWith('INSERT INTO "core_external_id"') ? line.replaceAll("'lab'", "'patients'") : line,
        )
        .join('\n'),
      message: /would restore the seed records of patients, which lab does not own/,
    },
  ];
  for (const { args, write, message, hint } of cases) {
    if (write !== undefined) await writeFile(crafted, write);
    const before = await state();
    const run = await ward(args, env);
    t.is(run.code, 1, run.stdout);
    t.regex(run.stderr, message);
    if (hint !== undefined) t.regex(run.stderr, hint);
    t.regex(run.stderr, /nothing was restored/);
    t.deepEqual(await state(), before, 'nothing changed');
  }
});

test('reinstall, then feed the backup to psql: rows and seed tracking are as they were', async (t) => {
  const { env, file, before, after } = await uninstallAndReinstall(t);
  const psql = spawnSync('psql', [env.DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', file], {
    encoding: 'utf8',
  });
  t.is(psql.status, 0, psql.stderr);
  t.deepEqual(await after(), before);
});

test('orphan: a module whose code is gone blocks start-up until it is orphaned, and no step runs', async (t) => {
  const { knex, env } = await setup(t);
  await installLab(env);
  const gone = { ...env, WARD_MODULE_PATHS: '' };
  const blocked = await serveUntilExit(gone);
  t.is(blocked.code, 1);
  t.regex(blocked.output, /orphan modules \(in the database, missing from disk\):\nlab\n/);
  const orphaned = await ward(['modules', 'orphan', 'lab'], gone);
  t.is(orphaned.code, 0, orphaned.stderr);
  await restart(gone);
  t.like(await moduleRow(knex, 'lab'), { state: 'uninstalled' });
  t.true(await tableExists(knex, 'lab_test'), 'no downgrade');
  t.is(
    await knex('core_external_id')
      .where({ module_name: 'lab' })
      .count('* as n')
      .first()
      .then((r) => Number(r?.n)),
    4,
    'no purge',
  );
});

test('a failing module keeps its pending state and error, its dependents are skipped, the rest start', async (t) => {
  const { knex, env } = await setup(t, fixtures('lifecycle-v1', 'lifecycle-bad'));
  for (const name of ['broken_seed', 'needs_broken', 'lab']) await ward(['modules', 'install', name], env);
  await restart(env);
  t.like(await moduleRow(knex, 'lab'), { state: 'installed' });
  const broken = await moduleRow(knex, 'broken_seed');
  t.is(broken.state, 'to_install');
  t.regex(broken.error_message, /^install failed at seed: .*colour/s);
  const dependent = await moduleRow(knex, 'needs_broken');
  t.is(dependent.state, 'to_install');
  t.regex(dependent.error_message, /skipped: broken_seed failed/);
  const doctor = await ward(['modules', 'doctor', '--json'], env);
  t.is(doctor.code, 1);
  t.deepEqual(
    parseJson<{ errored: Array<{ module: string }> }>(doctor).errored.map((e) => e.module),
    ['broken_seed', 'needs_broken'],
  );
});
