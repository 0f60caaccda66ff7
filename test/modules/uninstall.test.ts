/**
 * The clinic modules leave as the runbook says: through the real CLI and a real backend restart,
 * `documents` (official, so only with --force) is backed up, its table dropped and its branch
 * downgraded; reinstalled and restored, its rows are back. In-process, all three modules uninstall
 * (every migration's `down`) and install again on the same database.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import type { Knex } from 'knex';
import { loadConfig } from '../../src/config.ts';
import { discover } from '../../src/manifests/discover.ts';
import { reconcile } from '../../src/applier/reconcile.ts';
import { schedule } from '../../src/db/schedule.ts';
import { silentLogger } from '../../src/logger.ts';
import { blobPath, putBlob } from '../../modules/documents/lib/blob-store.ts';
import { sdk } from '../../src/sdk/runtime.ts';
import { scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { restart, serve } from '../helpers/serve.ts';
import { clinicDatabase } from './helpers.ts';

const CLINIC_TABLES = /^(patients|appointments|documents)_/;

const tables = async (knex: Knex) =>
  (
    (await knex('pg_tables')
      .where({ schemaname: 'public' })
      .orderBy('tablename')
      .pluck('tablename')) as string[]
  ).filter((name) => CLINIC_TABLES.test(name));

const state = async (knex: Knex, name: string) =>
  ((await knex('core_module').where({ name }).first('state')) as { state: string }).state;

test('uninstall documents --force, restart: backup holds the rows, table gone; reinstall + restore brings them back', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const storage = await scratchDir('ward-storage-');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage };
  const run = async (...args: string[]) => {
    const result = await ward(args, env);
    t.is(result.code, 0, `ward ${args.join(' ')}: ${result.stderr}`);
    return result;
  };
  await run('modules', 'install', 'documents');
  await restart(env);
  t.is(await state(knex, 'documents'), 'installed');

  const [patient] = await knex('patients_patient')
    .insert({ mrn: 'U-1', family_name: 'Ng', given_name: 'Al' })
    .returning('id');
  const blob = await putBlob(sdk, storage, Readable.from([Buffer.from('referral')]), { maxBytes: 100 });
  await knex('documents_document').insert([
    {
      patient_id: patient.id,
      title: 'Referral',
      content_type: 'text/plain',
      sha256: blob.sha256,
      size: blob.size,
    },
    {
      patient_id: patient.id,
      title: "O'Brien's letter",
      content_type: 'text/plain',
      sha256: blob.sha256,
      size: blob.size,
    },
  ]);
  const before = await knex('documents_document').orderBy('id').select();

  const refused = await ward(['modules', 'uninstall', 'documents'], env);
  t.is(refused.code, 1, 'official modules need --force');
  await run('modules', 'uninstall', 'documents', '--force');
  await restart(env);
  t.is(await state(knex, 'documents'), 'uninstalled');
  t.false(await knex.schema.hasTable('documents_document'));
  t.deepEqual(await knex('knex_migrations').whereLike('name', 'documents/%').select('name'), []);
  t.is(
    await knex('patients_patient')
      .count({ n: '*' })
      .first()
      .then((row) => Number(row?.n)),
    1,
    'patients stay',
  );
  t.true((await stat(blobPath(storage, blob.sha256))).isFile(), 'stored files stay, for a restore');

  const backups = await readdir(path.join(storage, 'backups'));
  t.is(backups.length, 1);
  t.regex(backups[0] as string, /^module_documents_\d{8}T\d{6}Z\.sql$/);
  const sql = await readFile(path.join(storage, 'backups', backups[0] as string), 'utf8');
  t.regex(sql, /^-- table "[^"]*documents_document[^"]*" rows 2$/m);
  t.true(sql.includes("'O''Brien''s letter'"));

  await run('modules', 'install', 'documents');
  await restart(env);
  t.deepEqual(await knex('documents_document').select(), [], 'the reinstall starts empty');
  const restored = await run('modules', 'restore', 'documents');
  t.regex(restored.stdout, /documents_document: 2 rows/);
  t.deepEqual(await knex('documents_document').orderBy('id').select(), before);
  t.like(await knex('core_audit_event').where({ action: 'module.restore' }).first(), {
    kind: 'module',
    record_id: 'documents',
    detail: { rows: 2, tables: [{ table: 'documents_document', rows: 2 }] },
  });
  t.regex((await knex('core_audit_event').where({ action: 'module.restore' }).first('actor')).actor, /^cli:/);

  await run('users', 'create', 'clinic_ops', '--role', 'clinician');
  const token = (await run('tokens', 'create', '--user', 'clinic_ops')).stdout.trim();
  const served = await serve(env);
  t.teardown(() => served.stop());
  const content = await fetch(`${served.base}/api/v1/documents/documents/${before[0].id}/content`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(content.status, 200);
  t.is(await content.text(), 'referral', 'the restored row finds the file the uninstall kept');
});

test('all three clinic modules uninstall (every down migration runs) and install again', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  const config = loadConfig({ DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir('ward-storage-') });
  const apply = async (request: Parameters<typeof schedule>[2]) => {
    await schedule(knex, await discover(config), request, { dryRun: false });
    const result = await reconcile(knex, url, config, silentLogger);
    t.deepEqual(result.failed, []);
  };
  t.deepEqual(await tables(knex), [
    'appointments_appointment',
    'appointments_practitioner',
    'appointments_practitioner_alias',
    'appointments_status',
    'documents_document',
    'patients_patient',
  ]);
  await apply({ kind: 'uninstall', name: 'patients', force: true, cascade: true });
  for (const name of ['patients', 'appointments', 'documents']) t.is(await state(knex, name), 'uninstalled');
  t.deepEqual(await tables(knex), []);
  t.deepEqual(await knex('core_external_id').where({ module_name: 'appointments' }).select(), []);
  await apply({ kind: 'install', name: 'appointments' });
  await apply({ kind: 'install', name: 'documents' });
  t.is(
    await knex('appointments_status')
      .count({ n: '*' })
      .first()
      .then((row) => Number(row?.n)),
    5,
  );
  t.is(await tables(knex).then((names) => names.length), 6);
});
