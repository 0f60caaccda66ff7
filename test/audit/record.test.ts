import test from 'ava';
import type { Knex } from 'knex';
import { canonicalParts } from '../../src/audit/chain.ts';
import { readAuditPage } from '../../src/audit/read.ts';
import { appendAudit, recordAudit } from '../../src/audit/record.ts';
import { purgeAudit } from '../../src/audit/retention.ts';
import { takeCheckpoint, verifyChain } from '../../src/audit/verify.ts';
import { acting } from '../../src/db/acting.ts';
import { testDatabase } from '../helpers/database.ts';

const read = (id: number) => ({
  action: 'record.read',
  module: 'patients',
  kind: 'patient',
  recordId: id,
  patientId: id,
});

test('a row records the actor, its user, the object and the client, and the chain verifies', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const alice = acting(knex, 'user:7:session:0123456789abcdef', '203.0.113.9');
  await recordAudit(alice, read(12));
  await alice.transaction((_trx, bound) =>
    recordAudit(bound, { ...read(12), action: 'record.update', detail: { changes: { phone: ['1', '2'] } } }),
  );
  const rows = await knex('core_audit_event').orderBy('id').select();
  t.like(rows[0], {
    actor: 'user:7:session:0123456789abcdef',
    user_id: 7,
    action: 'record.read',
    module: 'patients',
    kind: 'patient',
    record_id: '12',
    patient_id: '12',
    client: '203.0.113.9',
    outcome: 'ok',
    detail: null,
  });
  t.deepEqual(rows[1].detail, { changes: { phone: ['1', '2'] } });
  t.like(await verifyChain(knex), { intact: true, rows: 2 });
});

test('a rolled-back transaction leaves no row', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const cli = acting(knex, 'cli:alice');
  await t.throwsAsync(
    cli.transaction(async (_trx, bound) => {
      await recordAudit(bound, { ...read(3), action: 'record.delete' });
      throw new Error('the change failed');
    }),
  );
  t.deepEqual(await knex('core_audit_event').select(), []);
  await recordAudit(cli, read(3));
  t.like(await verifyChain(knex), { intact: true, rows: 1 });
});

test('concurrent appends, in and out of transactions, keep one unbroken chain', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const work = Array.from({ length: 40 }, (_, index) => {
    const who = acting(knex, `user:${index}:token:${index}`);
    return index % 2 === 0
      ? recordAudit(who, [read(index), read(index + 1000)])
      : who.transaction((_trx, bound) => recordAudit(bound, read(index)));
  });
  await Promise.all(work);
  t.like(await verifyChain(knex), { intact: true, rows: 60 });
});

test('a list records the patients it showed, each once, and every access to one of them finds it', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  // A CLI actor: the test database has no users' table for readAuditPage to name them from.
  const alice = acting(knex, 'cli:alice');
  await recordAudit(alice, read(12));
  await recordAudit(alice, {
    action: 'record.list',
    module: 'patients',
    kind: 'patient',
    patientIds: [12, 40, 12, '41'],
    detail: { ids: [12, 40, 41] },
  });
  await recordAudit(alice, { action: 'record.list', module: 'patients', kind: 'patient', patientIds: [] });
  await alice.transaction((_trx, bound) =>
    recordAudit(bound, { action: 'record.batch', kind: 'appointment', patientIds: [40], detail: {} }),
  );
  const rows = await knex('core_audit_event').orderBy('id').select('action', 'patient_id', 'patient_ids');
  t.deepEqual(
    rows.map((row) => row.patient_ids),
    [null, ['12', '40', '41'], null, ['40']],
  );
  const actions = async (patientId: string) =>
    (await readAuditPage(knex, { filter: { patientId }, before: null, limit: 50 })).items.map(
      (item) => `${item.action} ${item.patientId ?? '-'} ${JSON.stringify(item.patientIds)}`,
    );
  t.deepEqual(await actions('12'), ['record.list - ["12","40","41"]', 'record.read 12 null']);
  t.deepEqual(await actions('40'), ['record.batch - ["40"]', 'record.list - ["12","40","41"]']);
  t.deepEqual(await actions('99'), []);
  t.like(await verifyChain(knex), { intact: true, rows: 4 });
});

test('verify names a row whose listed patients were changed with triggers disabled', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  await recordAudit(system, read(1));
  await recordAudit(system, { action: 'record.list', kind: 'patient', patientIds: [1, 2] });
  await recordAudit(system, read(2));
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await tamper(knex, `update core_audit_event set patient_ids = '{1}' where id = ${ids[1]}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[1] });
  await tamper(knex, `update core_audit_event set patient_ids = null where id = ${ids[1]}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[1] });
  await tamper(knex, `update core_audit_event set patient_ids = '{1,2}' where id = ${ids[1]}`);
  t.like(await verifyChain(knex), { intact: true, rows: 3 });
  // A read that never listed anyone cannot be made to have.
  await tamper(knex, `update core_audit_event set patient_ids = '{9}' where id = ${ids[2]}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[2] });
});

test('reads arriving together are written together: one statement, one time, for a group', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  // Forty reads asked in the same tick: the group writer finds them all waiting once it has a connection.
  await Promise.all(
    Array.from({ length: 40 }, (_, index) => recordAudit(acting(knex, `user:${index}:token:1`), read(index))),
  );
  const times = (await knex('core_audit_event').distinct('at').pluck('at')) as Date[];
  t.true(times.length <= 2, `${times.length} groups`);
  t.like(await verifyChain(knex), { intact: true, rows: 40 });
});

test('a NUL or a lone surrogate typed into an id or a detail is kept as U+FFFD, and the chain verifies', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await Promise.all([
    recordAudit(acting(knex, 'user:1:token:1'), read(1)),
    recordAudit(acting(knex, 'user:2:token:1'), {
      ...read(2),
      recordId: 'a\0b\uD800',
      detail: {
        'k\0': 'v\0',
        literal: '\\u0000',
        's\uDC00': 'x\uD800y',
        pair: '\uD83D\uDE00',
        text: '\\uD800',
      },
    }),
  ]);
  const row = await knex('core_audit_event').where({ user_id: 2 }).first();
  t.is(row.record_id, 'a\uFFFDb\uFFFD');
  t.deepEqual(row.detail, {
    'k\uFFFD': 'v\uFFFD',
    literal: '\\u0000',
    's\uFFFD': 'x\uFFFDy',
    pair: '\uD83D\uDE00',
    text: '\\uD800',
  });
  t.like(await verifyChain(knex), { intact: true, rows: 2 });
});

test('line breaks, quotes and backslashes in the fields of grouped reads are kept as typed, and the chain verifies', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const odd = 'a\nb\r\n"c"\\d\te';
  await Promise.all([
    recordAudit(acting(knex, 'user:1:token:1'), { ...read(1), client: odd }),
    recordAudit(acting(knex, 'user:2:token:1'), {
      ...read(2),
      recordId: odd,
      detail: { [odd]: [odd, 1.5, null] },
    }),
    recordAudit(acting(knex, 'user:3:token:1'), { ...read(3), patientIds: [odd, '4'] }),
  ]);
  const rows = await knex('core_audit_event').orderBy('user_id');
  t.is(rows[0].client, odd);
  t.is(rows[1].record_id, odd);
  t.deepEqual(rows[1].detail, { [odd]: [odd, 1.5, null] });
  t.deepEqual(rows[2].patient_ids, [odd, '4']);
  t.is(rows[0].detail, null);
  t.like(await verifyChain(knex), { intact: true, rows: 3 });
});

test('an event the database refuses fails its own request only, not the others grouped with it', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  // A user id beyond PostgreSQL's integer: the one event its column refuses.
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, index) =>
      recordAudit(
        acting(knex, index === 7 ? 'user:99999999999:token:1' : `user:${index}:token:1`),
        read(index),
      ),
    ),
  );
  t.deepEqual(
    results.flatMap((result, index) => (result.status === 'rejected' ? [index] : [])),
    [7],
  );
  t.like(await verifyChain(knex), { intact: true, rows: 19 });
});

test('the table refuses UPDATE, DELETE and TRUNCATE', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await recordAudit(acting(knex, 'system'), read(1));
  await t.throwsAsync(knex('core_audit_event').update({ actor: 'someone else' }), {
    message: /append-only: UPDATE refused/,
  });
  await t.throwsAsync(knex('core_audit_event').delete(), { message: /append-only: DELETE refused/ });
  await t.throwsAsync(knex.raw('truncate core_audit_event'), { message: /append-only: TRUNCATE refused/ });
  t.is((await knex('core_audit_event').select()).length, 1);
});

/** What a superuser can do: triggers off for the session. */
async function tamper(knex: Knex, sql: string): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await trx.raw(sql);
  });
}

test('verify names the first broken row after an edit made with triggers disabled', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 5; id++) await recordAudit(system, read(id));
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await tamper(knex, `update core_audit_event set actor = 'cli:mallory' where id = ${ids[2]}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[2] });
});

test('verify names the row after one deleted with triggers disabled', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 5; id++) await recordAudit(system, read(id));
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await tamper(knex, `delete from core_audit_event where id = ${ids[1]}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[2] });
});

test('a checkpoint catches a rewrite of the whole chain and a cut tail', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 3; id++) await recordAudit(system, read(id));
  const checkpoint = (await takeCheckpoint(knex))!;
  await recordAudit(system, read(4));
  t.like(await verifyChain(knex, checkpoint), { intact: true, rows: 4 });

  // A forger with superuser access empties the table and writes a chain of their own, valid in itself.
  await tamper(knex, 'delete from core_audit_event');
  await knex.transaction((trx) =>
    appendAudit(
      trx,
      [1, 2, 3, 4].map((id) => ({ ...read(id), actor: 'system', client: 'forged' })),
    ),
  );
  t.like(await verifyChain(knex), { intact: true });
  t.like(await verifyChain(knex, checkpoint), { intact: false });

  await tamper(knex, 'delete from core_audit_event');
  t.like(await verifyChain(knex, checkpoint), { intact: false, brokenAt: null });
});

test('a purge removes the oldest rows, records itself, and verify stays green from its anchor', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 4; id++) await recordAudit(system, read(id));
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  const lastPurged = (await knex('core_audit_event').where({ id: ids[2] }).first('hash')) as { hash: Buffer };

  // Zero days: everything written before the purge began goes, but the newest row, its link.
  t.is(await purgeAudit(knex, 0), 3);
  const kept = await knex('core_audit_event').orderBy('id').select('id', 'action', 'actor', 'detail');
  t.is(kept.length, 2);
  t.is(kept[0].id, ids[3]);
  t.like(kept[1], {
    action: 'audit.purge',
    actor: 'system',
    detail: { purged: 3, throughId: ids[2], lastHash: lastPurged.hash.toString('hex'), retentionDays: 0 },
  });
  t.like(await verifyChain(knex), {
    intact: true,
    rows: 2,
    anchor: { purgeId: kept[1].id, throughId: ids[2] },
  });

  await recordAudit(system, read(5));
  t.is(await purgeAudit(knex, 0), 2);
  t.like(await verifyChain(knex), { intact: true, rows: 2 });
  t.is(await purgeAudit(knex, 36500), 0);
});

test('after a purge, verify still finds an edit of a kept row', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 3; id++) await recordAudit(system, read(id));
  await purgeAudit(knex, 0);
  const [kept] = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await tamper(knex, `update core_audit_event set record_id = '99' where id = ${kept}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: kept });
});

/** What the table's owner can do without a superuser: the purge's own switch, then any DELETE. */
async function ownerDelete(knex: Knex, where: string): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw(`select set_config('ward.audit_purge', 'on', true)`);
    await trx.raw(`delete from core_audit_event where ${where}`);
  });
}

/** A purge row as a forger would append it: valid in the chain, naming the row and hash they chose. */
async function forgePurge(knex: Knex, throughId: string, hash: Buffer): Promise<void> {
  await knex.transaction((trx) =>
    appendAudit(trx, [
      {
        actor: 'system',
        action: 'audit.purge',
        kind: 'audit_event',
        detail: { purged: 1, throughId, lastHash: hash.toString('hex'), retentionDays: 0 },
      },
    ]),
  );
}

test('the table owner deleting a row and appending a purge row naming it fails verify', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 5; id++) await recordAudit(system, read(id));
  const rows = (await knex('core_audit_event').orderBy('id').select('id', 'hash')) as {
    id: string;
    hash: Buffer;
  }[];
  await ownerDelete(knex, `id = ${rows[2]!.id}`);
  await forgePurge(knex, rows[2]!.id, rows[2]!.hash);
  const verdict = await verifyChain(knex);
  t.like(verdict, { intact: false, brokenAt: rows[0]!.id });
  t.regex(verdict.intact ? '' : verdict.reason, /still there although the purge/);
});

test('a superuser editing a row and appending a purge row naming it fails verify', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 6; id++) await recordAudit(system, read(id));
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await tamper(knex, `update core_audit_event set actor = 'cli:mallory' where id = ${ids[3]}`);
  const edited = (await knex('core_audit_event').where({ id: ids[3] }).first('hash')) as { hash: Buffer };
  await forgePurge(knex, ids[3]!, edited.hash);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[0] });
});

test('deleting the oldest rows without a purge row, or behind a real purge, fails verify', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const system = acting(knex, 'system');
  for (let id = 1; id <= 4; id++) await recordAudit(system, read(id));
  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await ownerDelete(knex, `id = ${ids[0]}`);
  t.like(await verifyChain(knex), { intact: false, brokenAt: ids[1] });

  const { knex: other } = await testDatabase(t, { migrated: true });
  const again = acting(other, 'system');
  for (let id = 1; id <= 4; id++) await recordAudit(again, read(id));
  await purgeAudit(other, 0);
  for (let id = 5; id <= 7; id++) await recordAudit(again, read(id));
  const kept = (await other('core_audit_event').orderBy('id').select('id', 'hash')) as {
    id: string;
    hash: Buffer;
  }[];
  await ownerDelete(other, `id = ${kept[0]!.id}`);
  t.like(await verifyChain(other), { intact: false, brokenAt: kept[1]!.id });
  // A second forged purge claiming less than the real one had removed is refused by itself.
  await forgePurge(other, '1', kept[0]!.hash);
  const verdict = await verifyChain(other);
  t.false(verdict.intact);
  t.regex(verdict.intact ? '' : verdict.reason, /had already removed rows through/);
});

test('a backend of the version before, still serving during an upgrade, appends with its function into the same chain', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await recordAudit(acting(knex, 'user:1:token:1'), read(1));
  // What the version before sent: one array per column, the canonical text around the time.
  const fields = {
    actor: 'user:2:token:1',
    userId: 2,
    action: 'record.read',
    module: 'patients',
    kind: 'patient',
    recordId: '2',
    patientId: '2',
    patientIds: null,
    client: '127.0.0.1',
    outcome: 'ok' as const,
    detail: null,
  };
  const { head, tail } = canonicalParts(fields);
  await knex.raw(
    `select core_audit_append(?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
       ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])`,
    [
      [fields.actor],
      [fields.userId],
      [fields.action],
      [fields.module],
      [fields.kind],
      [fields.recordId],
      [fields.patientId],
      [null],
      [fields.client],
      [fields.outcome],
      [null],
      [head],
      [tail],
    ] as Knex.Value[],
  );
  await recordAudit(acting(knex, 'user:3:token:1'), read(3));
  t.deepEqual(
    (await knex('core_audit_event').orderBy('id').select('user_id')).map(
      (row: { user_id: number }) => row.user_id,
    ),
    [1, 2, 3],
  );
  t.like(await verifyChain(knex), { intact: true, rows: 3 });
});
