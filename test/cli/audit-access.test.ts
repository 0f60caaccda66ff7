/**
 * `ward audit` records its own reading of the trail: a table or --json as audit.read, an export as
 * audit.export before it starts and audit.export_end when it ends.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import test, { type ExecutionContext } from 'ava';
import { AUTH_MODULES, addUser, installedDatabase } from '../helpers/app.ts';
import { insertAuditRows } from '../helpers/audit.ts';
import { ROOT } from '../../src/config.ts';
import { scratchDir, WARD, ward } from '../helpers/cli.ts';

async function setup(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  const alice = await addUser(knex, 'alice', ['admin']);
  await insertAuditRows(
    knex,
    Array.from({ length: 6 }, (_, i) => ({
      at: new Date(Date.UTC(2026, 10, 2, i)),
      actor: `user:${alice}:session:ab12`,
      user_id: alice,
      action: 'record.read',
      module: 'patients',
      kind: 'patient',
      record_id: '42',
      patient_id: i < 4 ? '42' : '43',
    })),
  );
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir('ward-audit-'),
    WARD_MODULE_PATHS: AUTH_MODULES,
  };
  const recorded = () => knex('core_audit_event').where('action', 'like', 'audit.%').orderBy('id').select();
  return { env, alice, recorded, knex };
}

const me = `cli:${os.userInfo().username}`;

test('ward audit records who read the trail, with the filters and how many events it printed', async (t) => {
  const { env, alice, recorded } = await setup(t);
  const table = await ward(['audit', '--patient', '42', '--limit', '3'], env);
  t.is(table.code, 0, table.stderr);
  const json = await ward(['audit', '--actor', 'alice', '--since', '2026-11-02', '--json'], env);
  t.is(json.code, 0, json.stderr);
  const rows = await recorded();
  t.like(rows, [
    { actor: me, action: 'audit.read', kind: 'audit_trail', patient_id: null, outcome: 'ok' },
    { actor: me, action: 'audit.read' },
  ]);
  t.deepEqual(rows[0].detail, { filters: { patient: '42' }, count: 3, via: 'cli' });
  t.deepEqual(rows[1].detail, {
    filters: { userId: alice, since: '2026-11-02T00:00:00.000Z' },
    count: 6,
    via: 'cli',
  });
});

test('ward audit --format records the export as it starts and as it ends, with how many events it wrote', async (t) => {
  const { env, recorded } = await setup(t);
  const fhir = await ward(['audit', '--patient', '42', '--format', 'fhir'], env);
  t.is(fhir.code, 0, fhir.stderr);
  t.is(fhir.stdout.trim().split('\n').length, 4);
  const rows = await recorded();
  t.like(rows, [
    { actor: me, action: 'audit.export', kind: 'audit_trail', outcome: 'ok' },
    { actor: me, action: 'audit.export_end', kind: 'audit_trail', outcome: 'ok' },
  ]);
  t.deepEqual(rows[0].detail, { filters: { patient: '42' }, format: 'fhir', via: 'cli' });
  t.deepEqual(rows[1].detail, { count: 4, complete: true, via: 'cli' });
  t.is(rows[1].record_id, rows[0].record_id, 'the end names the export it ends');
});

test('an export killed part way leaves its start on the trail, and no end', async (t) => {
  const { env, recorded, knex } = await setup(t);
  await insertAuditRows(
    knex,
    Array.from({ length: 3000 }, (_, i) => ({
      at: new Date(Date.UTC(2026, 10, 3, 0, 0, i)),
      actor: 'cli:root',
      action: 'record.read',
      module: 'patients',
      kind: 'patient',
      record_id: String(i),
      patient_id: String(i),
    })),
  );
  // Nobody reads its output: once the pipe is full the export waits, part way, until killed.
  const child = spawn(WARD, ['audit', '--format', 'ndjson'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let rows = await recorded();
  while (rows.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    rows = await recorded();
  }
  child.kill('SIGKILL');
  await exited;
  rows = await recorded();
  t.is(rows.length, 1, 'the start only');
  t.like(rows[0], { actor: me, action: 'audit.export', outcome: 'ok', detail: { format: 'ndjson' } });
});

test('a bad flag records nothing', async (t) => {
  const { env, recorded } = await setup(t);
  t.is((await ward(['audit', '--since', 'yesterday'], env)).code, 2);
  t.deepEqual(await recorded(), []);
});
