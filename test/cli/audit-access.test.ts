/** `ward audit` records its own reading of the trail: a table or --json as audit.read, an export as audit.export. */
import os from 'node:os';
import test, { type ExecutionContext } from 'ava';
import { AUTH_MODULES, addUser, installedDatabase } from '../helpers/app.ts';
import { insertAuditRows } from '../helpers/audit.ts';
import { scratchDir, ward } from '../helpers/cli.ts';

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
  return { env, alice, recorded };
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

test('ward audit --format records the export with its format and how many events it wrote', async (t) => {
  const { env, recorded } = await setup(t);
  const fhir = await ward(['audit', '--patient', '42', '--format', 'fhir'], env);
  t.is(fhir.code, 0, fhir.stderr);
  t.is(fhir.stdout.trim().split('\n').length, 4);
  const rows = await recorded();
  t.is(rows.length, 1);
  t.like(rows[0], { actor: me, action: 'audit.export', outcome: 'ok' });
  t.deepEqual(rows[0].detail, {
    filters: { patient: '42' },
    format: 'fhir',
    count: 4,
    complete: true,
    via: 'cli',
  });
});

test('a bad flag records nothing', async (t) => {
  const { env, recorded } = await setup(t);
  t.is((await ward(['audit', '--since', 'yesterday'], env)).code, 2);
  t.deepEqual(await recorded(), []);
});
