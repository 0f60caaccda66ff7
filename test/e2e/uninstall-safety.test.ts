/**
 * An uninstall is all or nothing, end to end with the real `bin/ward` and real backend restarts:
 * the CLI refuses what would strand a foreign key (`--force` included), `--cascade`
 * takes the referencing modules along, referencing ones first, and at restart the `check` step
 * stops an uninstall whose downgrade would fail before its backup, hook or purge run.
 */
import { spawnSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { FIXTURES, parseJson, scratchDir, ward, type WardEnv } from '../helpers/cli.ts';
import { templateDatabase, testDatabase } from '../helpers/database.ts';
import { snapshot } from '../helpers/rows.ts';
import { restart } from '../helpers/serve.ts';

const LAB = path.join(FIXTURES, 'modules', 'lifecycle-v1');

async function must(args: string[], env: WardEnv): Promise<string> {
  const run = await ward(args, env);
  if (run.code !== 0) throw new Error(`ward ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/**
 * The whole database as `pg_dump` prints it, schema and rows; `\restrict` lines carry a random
 * key per dump. `skipData` names tables (and sequences) whose rows are left out.
 */
/**
 * The database as pg_dump writes it, less the job queue's own schema: every backend that serves
 * keeps the queue's state there (pg-boss creates and maintains it), whatever the restart applies.
 */
function dump(url: string, skipData: string[] = []): string {
  const args = [
    url,
    '--no-owner',
    '--exclude-schema=ward_jobs',
    ...skipData.map((table) => `--exclude-table-data=${table}`),
  ];
  const result = spawnSync('pg_dump', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`pg_dump failed: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter((line) => !/^\\(un)?restrict /.test(line))
    .join('\n');
}

/**
 * What a restart that records a failure legitimately writes: the module rows, their log, and the
 * audit trail's row of the restart.
 */
const SKIP_DATA = [
  'core_module',
  'core_module_operation_log',
  'core_module_operation_log_id_seq',
  'core_audit_event',
  'core_audit_event_id_seq',
];

const files = async (dir: string): Promise<string[]> => (await readdir(dir).catch(() => [])).sort();

const states = async (knex: Knex): Promise<Record<string, string>> =>
  Object.fromEntries(
    (
      (await knex('core_module').orderBy('name').select('name', 'state')) as Array<{
        name: string;
        state: string;
      }>
    ).map((row) => [row.name, row.state]),
  );

let clinicTemplate: Promise<string> | undefined;

/** base, patients, appointments, documents and migration_import installed by the CLI and a restart, plus a patient with an appointment and a document. */
async function clinic(t: ExecutionContext) {
  clinicTemplate ??= templateDatabase(async (url) => {
    const env = { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir('ward-safety-template-') };
    await restart(env);
    await must(['modules', 'install', 'migration_import'], env);
    await restart(env);
  });
  const { url, knex } = await testDatabase(t, { template: await clinicTemplate });
  const storage = await scratchDir('ward-safety-');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage };
  const [patient] = await knex('patients_patient')
    .insert({ mrn: 'S-1', family_name: 'Okafor', given_name: 'Ada' })
    .returning('id');
  await knex('appointments_appointment').insert({
    patient_id: patient.id,
    start_at: new Date('2026-05-01T09:00:00Z'),
    end_at: new Date('2026-05-01T09:30:00Z'),
  });
  await knex('documents_document').insert({
    patient_id: patient.id,
    title: 'Referral',
    content_type: 'text/plain',
    sha256: 'a'.repeat(64),
    size: 8,
  });
  return { url, knex, storage, env };
}

test('uninstall patients --force is refused naming the modules and foreign keys in the way, and changes nothing', async (t) => {
  const { url, knex, storage, env } = await clinic(t);
  const before = { dump: dump(url), rows: await snapshot(knex), storage: await files(storage) };

  const refused = await ward(['modules', 'uninstall', 'patients', '--force', '--json'], env);
  t.is(refused.code, 1);
  t.deepEqual(parseJson<{ error: unknown }>(refused).error, {
    code: 'required_by',
    message:
      'patients is required by appointments, documents, migration_import (foreign keys into its tables: ' +
      'appointments_appointment.appointments_appointment_patient_id_foreign → patients_patient, ' +
      'documents_document.documents_document_patient_id_foreign → patients_patient)',
    hint: 'uninstall appointments, documents, migration_import first, or pass --cascade to uninstall them as well; --force does not override foreign keys',
  });
  const text = await ward(['modules', 'uninstall', 'patients', '--force'], env);
  t.is(text.code, 1);
  t.regex(text.stderr, /patients is required by appointments, documents, migration_import/);
  t.regex(text.stderr, /--cascade/);

  t.deepEqual(await snapshot(knex), before.rows, 'no row, state or log entry written');
  t.is(dump(url), before.dump, 'the database is byte for byte as it was');
  t.deepEqual(await files(storage), before.storage);
});

test('a hand-written to_uninstall of a module whose tables others point into is not applied at restart, and nothing runs', async (t) => {
  const { url, knex, storage, env } = await clinic(t);
  const before = dump(url, SKIP_DATA);
  await knex('core_module').where({ name: 'patients' }).update({ state: 'to_uninstall' });

  await restart(env);

  t.like(await knex('core_module').where({ name: 'patients' }).first(), {
    state: 'to_uninstall',
    error_message:
      'not applied: patients is required by appointments, documents, migration_import (foreign keys into its tables: ' +
      'appointments_appointment.appointments_appointment_patient_id_foreign → patients_patient, ' +
      'documents_document.documents_document_patient_id_foreign → patients_patient)',
  });
  t.deepEqual(
    await knex('core_module_operation_log')
      .where({ module_name: 'patients', operation: 'uninstall' })
      .whereNot({ step: 'blocked' })
      .pluck('step'),
    [],
    'no uninstall step started (the log records only that it was blocked)',
  );
  t.deepEqual(
    await knex('core_module_operation_log')
      .where({ module_name: 'patients', operation: 'uninstall', step: 'blocked' })
      .pluck('status'),
    ['skipped'],
  );
  t.is(dump(url, SKIP_DATA), before);
  t.deepEqual(await files(path.join(storage, 'backups')), []);
});

test('uninstall patients --cascade --force takes the referencing modules first and the restart removes all of them', async (t) => {
  const { knex, storage, env } = await clinic(t);
  const planned = await must(['modules', 'uninstall', 'patients', '--cascade', '--force'], env);
  t.deepEqual(
    planned
      .split('\n')
      .filter((line) => line.startsWith('  - '))
      .map((line) => line.trim().split(/\s{2,}/)),
    [
      ['- migration_import', '1.2.0', 'dependent of patients'],
      ['- appointments', '1.2.0', 'dependent of patients'],
      ['- documents', '1.0.0', 'dependent of patients'],
      ['- patients', '1.3.0', 'requested'],
    ],
  );
  t.regex(planned, /Plan: 0 to install, 0 to upgrade, 4 to uninstall\./);

  await restart(env);

  t.deepEqual(await states(knex), {
    base: 'installed',
    patients: 'uninstalled',
    appointments: 'uninstalled',
    documents: 'uninstalled',
    migration_import: 'uninstalled',
  });
  t.deepEqual(
    await knex('core_module').whereNot({ error_message: null }).pluck('name'),
    [],
    'no module recorded an error',
  );
  const leftover = (await knex('pg_tables')
    .where({ schemaname: 'public' })
    .whereRaw("tablename ~ '^(patients|appointments|documents|migration_import)_'")
    .pluck('tablename')) as string[];
  t.deepEqual(leftover, []);
  t.deepEqual(
    await knex('knex_migrations')
      .whereRaw("split_part(name, '/', 1) in ('patients', 'appointments', 'documents', 'migration_import')")
      .pluck('name'),
    [],
  );
  const backups = await files(path.join(storage, 'backups'));
  t.deepEqual(backups.map((file) => /^module_(.+)_\d{8}T\d{6}Z\.sql$/.exec(file)?.[1]).sort(), [
    'appointments',
    'documents',
    'migration_import',
    'patients',
  ]);
  const done = (await knex('core_module_operation_log')
    .where({ operation: 'uninstall', step: 'finalize', status: 'done' })
    .orderBy('id')
    .pluck('module_name')) as string[];
  t.deepEqual(
    done,
    ['migration_import', 'appointments', 'documents', 'patients'],
    'applied in the planned order',
  );
});

test('a foreign key from a table no module owns: the uninstall is refused, and scheduled by hand it stops at check with nothing destroyed', async (t) => {
  const { url, knex } = await testDatabase(t);
  const storage = await scratchDir('ward-safety-lab-');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: LAB };
  await restart(env);
  await must(['modules', 'install', 'lab'], env);
  await restart(env);
  await knex.raw(
    'create table clinic_audit (id serial primary key, lab_test_id integer references lab_test (id))',
  );
  await knex('clinic_audit').insert({ lab_test_id: (await knex('lab_test').first('id')).id });

  const before = { dump: dump(url), rows: await snapshot(knex) };
  for (const flags of [[], ['--force'], ['--cascade', '--force']]) {
    const refused = await ward(['modules', 'uninstall', 'lab', ...flags, '--json'], env);
    t.is(refused.code, 1);
    t.deepEqual(parseJson<{ error: unknown }>(refused).error, {
      code: 'referenced_by_unowned',
      message:
        'lab cannot be uninstalled: tables no installed module owns hold foreign keys into the tables it would drop: clinic_audit.clinic_audit_lab_test_id_fkey → lab_test',
      hint: 'drop the foreign key (`ALTER TABLE clinic_audit DROP CONSTRAINT clinic_audit_lab_test_id_fkey`) or the table holding it, then try again; neither --cascade nor --force removes a table no module owns',
    });
  }
  t.deepEqual(await snapshot(knex), before.rows);
  t.is(dump(url), before.dump);

  await knex('core_module').where({ name: 'lab' }).update({ state: 'to_uninstall' });
  const scheduled = dump(url, SKIP_DATA);
  for (let attempt = 1; attempt <= 2; attempt++) {
    await restart(env);
    const row = await knex('core_module').where({ name: 'lab' }).first('state', 'error_message');
    t.is(row.state, 'to_uninstall', 'the uninstall stays pending');
    t.regex(
      row.error_message,
      /^uninstall failed at check: the downgrade of lab would fail, so nothing was backed up, run or deleted: .*cannot drop table lab_test because other objects depend on it \(constraint clinic_audit_lab_test_id_fkey on table clinic_audit depends on table lab_test\)/,
    );
    t.regex(row.error_message, /ward modules install lab/);
    t.deepEqual(
      await knex('core_module_operation_log')
        .where({ module_name: 'lab', operation: 'uninstall' })
        .whereNot({ step: 'schedule' })
        .orderBy('id')
        .select('step', 'status')
        .then((rows) => rows.map((r: { step: string; status: string }) => `${r.step} ${r.status}`)),
      Array.from({ length: attempt }, () => ['check started', 'check failed']).flat(),
      'only check ran',
    );
    t.is(dump(url, SKIP_DATA), scheduled, 'tables, rows, seed records and migrations intact');
    t.deepEqual(await files(path.join(storage, 'backups')), [], 'no backup written');
    t.false((await files(storage)).includes('lab-uninstalled.txt'), 'the uninstall hook did not run');
  }

  await knex.raw('alter table clinic_audit drop constraint clinic_audit_lab_test_id_fkey');
  await restart(env);
  t.like(await knex('core_module').where({ name: 'lab' }).first(), {
    state: 'uninstalled',
    error_message: null,
  });
  t.false(await knex.schema.hasTable('lab_test'));
  t.true(await knex.schema.hasTable('clinic_audit'), 'the table no module owns stays');
});

test('doctor reports an installed module whose dependency is not installed as inactive, with the install to run', async (t) => {
  const { knex, env } = await clinic(t);
  await knex('core_module').where({ name: 'appointments' }).update({ state: 'uninstalled' });
  const run = await ward(['modules', 'doctor', '--json'], env);
  t.is(run.code, 1);
  t.deepEqual(parseJson<{ unsatisfiedDependencies: unknown }>(run).unsatisfiedDependencies, [
    {
      module: 'migration_import',
      state: 'installed',
      dependency: 'appointments',
      dependencyState: 'uninstalled',
      hint: 'migration_import is inactive until appointments is installed: run `ward modules install appointments` and restart, or uninstall migration_import',
    },
  ]);
  const text = await ward(['modules', 'doctor'], env);
  t.is(text.code, 1);
  t.regex(
    text.stdout,
    /^Missing dependencies:\n {2}migration_import \(installed\) depends on appointments, which is uninstalled: migration_import is inactive until appointments is installed: run `ward modules install appointments` and restart, or uninstall migration_import$/m,
  );
});
