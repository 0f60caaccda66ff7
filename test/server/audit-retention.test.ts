import test from 'ava';
import { recordAudit } from '../../src/audit/record.ts';
import { verifyChain } from '../../src/audit/verify.ts';
import { parseAuditRetention } from '../../src/config/backend-settings.ts';
import { acting } from '../../src/db/acting.ts';
import { silentLogger } from '../../src/logger.ts';
import { startAuditRetention } from '../../src/server/audit-retention.ts';
import { testDatabase } from '../helpers/database.ts';

test('WARD_AUDIT_RETENTION_DAYS: unset keeps forever; whole days from 1 to 36500; anything else names the setting', (t) => {
  t.is(parseAuditRetention(null), null);
  t.is(parseAuditRetention(' '), null);
  t.is(parseAuditRetention('2190'), 2190);
  for (const bad of ['0', '36501', '1.5', 'forever', '-3'])
    t.throws(() => parseAuditRetention(bad), {
      message: /^WARD_AUDIT_RETENTION_DAYS=.* is not a whole number of days/,
    });
});

test('a backend with a retention purges older rows at start, records the purge, and the chain still verifies', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 3; id++)
    await recordAudit(system, { action: 'record.read', kind: 'patient', recordId: id, patientId: id });
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  // Rows written 40 days ago stand in for time passing (their hashes no longer match: they go).
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await trx.raw(`update core_audit_event set at = at - interval '40 days' where id <= ${ids[1]}`);
  });
  await startAuditRetention(async () => knex, 30, silentLogger).stop();
  const kept = await knex('core_audit_event').orderBy('id').select('id', 'action');
  t.deepEqual(
    kept.map((row) => row.action),
    ['record.read', 'audit.purge'],
  );
  t.is(kept[0].id, ids[2]);
  t.like(await verifyChain(knex), { intact: true, rows: 2, anchor: { throughId: ids[1] } });
  await startAuditRetention(async () => knex, null, silentLogger).stop();
  t.is((await knex('core_audit_event').select()).length, 2);
});
