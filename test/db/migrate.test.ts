/**
 * The core migrations in batches: one that must run outside a transaction (a concurrent index
 * build) runs alone, the others together in one. The audit trail's `patient_ids` index is built
 * concurrently: writes to the trail (every audited request) go on while it is built, and a second
 * start waiting for the migration lock does not hold it up.
 */
import test from 'ava';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { LOCK_KEYS, withAdvisoryLock } from '../../src/db/lock.ts';
import { batchEnds, migrateCore } from '../../src/db/migrate.ts';
import { insertAuditRows } from '../helpers/audit.ts';
import { testDatabase } from '../helpers/database.ts';

const INDEX_MIGRATION = 'core/20261128000000_audit_patient_ids_concurrently';

test('a migration outside a transaction is a batch of its own; the others share theirs', (t) => {
  t.deepEqual(batchEnds([false, false, false]), [3]);
  t.deepEqual(batchEnds([false, false, true]), [2, 3]);
  t.deepEqual(batchEnds([true, false]), [1, 2]);
  t.deepEqual(batchEnds([false, true, true, false]), [1, 2, 3, 4]);
  t.deepEqual(batchEnds([]), []);
  fc.assert(
    fc.property(fc.array(fc.boolean()), (flags) => {
      const ends = batchEnds(flags);
      const starts = [0, ...ends.slice(0, -1)];
      return (
        (flags.length === 0 ? ends.length === 0 : ends.at(-1) === flags.length) &&
        ends.every((end, i) => end > starts[i]!) &&
        ends.every((end, i) => !flags.slice(starts[i], end).includes(true) || end - starts[i]! === 1)
      );
    }),
  );
});

const patientsIndex = async (knex: Knex) =>
  (
    (await knex.raw(
      `select c.oid::int as oid, i.indisvalid as valid, pg_get_indexdef(c.oid) as definition
         from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relname = 'core_audit_event_patients'`,
    )) as { rows: Array<{ oid: number; valid: boolean; definition: string }> }
  ).rows[0];

/** A database migrated as before the index was built concurrently: column there, index not. */
async function beforeConcurrentIndex(t: Parameters<typeof testDatabase>[0]) {
  const { knex, url } = await testDatabase(t, { migrated: true });
  await knex('knex_migrations').where('name', INDEX_MIGRATION).delete();
  await knex.raw('drop index core_audit_event_patients');
  return { knex, url };
}

test('a new install has the patients index, valid, partial, on patient_ids', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const index = await patientsIndex(knex);
  t.true(index?.valid);
  t.regex(index!.definition, /USING gin \(patient_ids\) WHERE \(patient_ids IS NOT NULL\)/);
});

test('the index is built while the trail takes writes: the build waits for them, not they for it', async (t) => {
  const { knex } = await beforeConcurrentIndex(t);
  await insertAuditRows(knex, [{ actor: 'system', action: 'record.list', patient_ids: ['1', '2'] }]);
  // A write in flight when the upgrade starts: the build waits for it to end.
  const inFlight = await knex.transaction();
  await insertAuditRows(inFlight, [{ actor: 'system', action: 'record.read', patient_id: '3' }]);
  const migrating = migrateCore(knex);
  let waiting = false;
  while (!waiting) {
    const rows = (await knex.raw(
      `select 1 from pg_stat_activity
        where datname = current_database() and query ilike 'create index concurrently%' and wait_event_type = 'Lock'`,
    )) as { rows: unknown[] };
    waiting = rows.rows.length > 0;
    if (!waiting) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // While the build waits, other requests go on writing to the trail (a plain build would hold
  // them all behind it).
  const written = await insertAuditRows(knex, [{ actor: 'system', action: 'record.read', patient_id: '4' }]);
  t.is(written.length, 1);
  await inFlight.commit();
  t.deepEqual(await migrating, [INDEX_MIGRATION]);
  t.true((await patientsIndex(knex))?.valid);
  const found = (await knex.raw(
    `select count(*)::int as n from core_audit_event where patient_ids @> array['2']`,
  )) as { rows: Array<{ n: number }> };
  t.is(found.rows[0]!.n, 1);
});

test('an install that built the index in the earlier migration keeps it as it is', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const before = await patientsIndex(knex);
  await knex('knex_migrations').where('name', INDEX_MIGRATION).delete();
  t.deepEqual(await migrateCore(knex), [INDEX_MIGRATION]);
  t.deepEqual(await patientsIndex(knex), before, 'the same index, not built again');
});

test('an index a concurrent build left invalid (interrupted) is built again', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await knex.raw(
    `update pg_index set indisvalid = false where indexrelid = 'core_audit_event_patients'::regclass`,
  );
  await knex('knex_migrations').where('name', INDEX_MIGRATION).delete();
  t.false((await patientsIndex(knex))?.valid);
  t.deepEqual(await migrateCore(knex), [INDEX_MIGRATION]);
  t.true((await patientsIndex(knex))?.valid);
});

test('two starts at once both finish: the one waiting for the lock does not hold up the build', async (t) => {
  const { knex, url } = await beforeConcurrentIndex(t);
  const lockSessions = async () =>
    (
      (await knex.raw(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = 'ward-lock'`,
      )) as { rows: Array<{ n: number }> }
    ).rows[0]!.n;
  let second: Promise<string[]> = Promise.resolve([]);
  const first = withAdvisoryLock(url, LOCK_KEYS.reconcile, async () => {
    // The second start waits for the lock while the first one builds the index.
    second = withAdvisoryLock(url, LOCK_KEYS.reconcile, () => migrateCore(knex));
    while ((await lockSessions()) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    return migrateCore(knex);
  });
  t.deepEqual(await first, [INDEX_MIGRATION]);
  t.deepEqual(await second, []);
  t.true((await patientsIndex(knex))?.valid);
});
