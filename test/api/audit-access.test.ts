/**
 * Reading the trail over HTTP is recorded: a page (the Audit page, the chart's Record access panel)
 * as `audit.read`, an export as `audit.export` before it starts and `audit.export_end` when it
 * ends, each with the reader, the filters, how many events and the client; an export a client
 * abandons part way is recorded as incomplete, and one that cannot be recorded does not start.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';
import { insertAuditRows, type TestAuditRow } from '../helpers/audit.ts';

async function setup(t: Parameters<typeof installedDatabase>[0], count = 12) {
  const { knex } = await installedDatabase(t);
  const alice = await addUser(knex, 'alice', ['admin']);
  const rows: TestAuditRow[] = Array.from({ length: count }, (_, i) => ({
    at: new Date(Date.UTC(2026, 10, 1, 0, i)),
    actor: 'cli:root',
    action: i % 2 === 0 ? 'record.read' : 'record.update',
    module: 'patients',
    kind: 'patient',
    record_id: '42',
    patient_id: i < 10 ? '42' : '7',
  }));
  for (let start = 0; start < rows.length; start += 2000)
    await insertAuditRows(knex, rows.slice(start, start + 2000));
  const { base } = await startApp(t, knex);
  const { token } = await signIn(base, 'alice');
  return { knex, base, token, alice };
}

const trailRows = (knex: Knex) =>
  knex('core_audit_event').where('action', 'like', 'audit.%').orderBy('id').select();

test('a page of the trail, as the chart panel asks for it, is recorded as audit.read before it is shown', async (t) => {
  const { knex, base, token, alice } = await setup(t);
  const panel = await call(base, 'GET', '/api/v1/audit?patient=42&action=record&limit=4', { token });
  t.is(panel.status, 200, panel.text);
  const { items, nextCursor } = panel.body as { items: unknown[]; nextCursor: string };
  t.is(items.length, 4);
  const next = await call(
    base,
    'GET',
    `/api/v1/audit?patient=42&action=record&limit=4&cursor=${nextCursor}`,
    {
      token,
    },
  );
  t.is(next.status, 200, next.text);
  const recorded = await trailRows(knex);
  t.is(recorded.length, 2);
  t.like(recorded[0], {
    actor: new RegExp(`^user:${alice}:session:`).test(recorded[0].actor)
      ? recorded[0].actor
      : 'a session of alice',
    user_id: alice,
    action: 'audit.read',
    kind: 'audit_trail',
    patient_id: null,
    client: '127.0.0.1',
    outcome: 'ok',
  });
  t.regex(recorded[0].actor, new RegExp(`^user:${alice}:(session|token):`));
  t.deepEqual(recorded[0].detail, { filters: { patient: '42', action: 'record' }, count: 4, via: 'api' });
  t.deepEqual(recorded[1].detail, {
    filters: { patient: '42', action: 'record' },
    count: 4,
    cursor: true,
    via: 'api',
  });
});

test('the panel is not filled by its own reads: audit.read rows name no patient', async (t) => {
  const { base, token } = await setup(t);
  for (let i = 0; i < 3; i++) await call(base, 'GET', '/api/v1/audit?patient=42&limit=10', { token });
  const shown = (await call(base, 'GET', '/api/v1/audit?patient=42&limit=10', { token })).body as {
    items: Array<{ action: string }>;
  };
  t.false(shown.items.some((item) => item.action.startsWith('audit.')));
  const reads = (await call(base, 'GET', '/api/v1/audit?action=audit&limit=10', { token })).body as {
    items: Array<{ action: string; detail: { filters: object } }>;
  };
  t.is(reads.items.length, 4, 'every read is found by its action');
});

test('an export is recorded as it starts (who, filters, format) and as it ends (how many, complete)', async (t) => {
  const { knex, base, token, alice } = await setup(t);
  const ndjson = await call(base, 'GET', '/api/v1/audit?patient=42&format=ndjson', { token });
  t.is(ndjson.status, 200, ndjson.text);
  t.is(ndjson.text.trim().split('\n').length, 10);
  const fhir = await call(base, 'GET', '/api/v1/audit?format=fhir&limit=5&since=2026-11-01', { token });
  t.is(fhir.text.trim().split('\n').length, 5, 'the export does not include its own records');
  const recorded = await trailRows(knex);
  t.like(recorded, [
    { action: 'audit.export', user_id: alice, kind: 'audit_trail', patient_id: null, outcome: 'ok' },
    { action: 'audit.export_end', user_id: alice, kind: 'audit_trail', patient_id: null, outcome: 'ok' },
    { action: 'audit.export', user_id: alice, outcome: 'ok' },
    { action: 'audit.export_end', user_id: alice, outcome: 'ok' },
  ]);
  t.deepEqual(recorded[0].detail, { filters: { patient: '42' }, format: 'ndjson', via: 'api' });
  t.deepEqual(recorded[1].detail, { count: 10, complete: true, via: 'api' });
  t.deepEqual(recorded[2].detail, {
    filters: { since: '2026-11-01T00:00:00.000Z' },
    format: 'fhir',
    limit: 5,
    via: 'api',
  });
  t.deepEqual(recorded[3].detail, { count: 5, complete: true, via: 'api' });
  t.regex(recorded[0].record_id, /^[0-9a-f-]{36}$/);
  t.is(recorded[1].record_id, recorded[0].record_id, 'the end names the export it ends');
  t.is(recorded[3].record_id, recorded[2].record_id);
  t.not(recorded[2].record_id, recorded[0].record_id, 'each export has its own id');
});

test('an export the client abandons part way has its start and an incomplete end, with what it wrote', async (t) => {
  const { knex, base, token } = await setup(t, 20_000);
  const controller = new AbortController();
  const answer = await fetch(`${base}/api/v1/audit?format=ndjson`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  t.is(answer.status, 200);
  const reader = answer.body!.getReader();
  await reader.read();
  const started = await trailRows(knex);
  t.like(started, [{ action: 'audit.export', outcome: 'ok', detail: { format: 'ndjson' } }]);
  controller.abort();
  await reader.cancel().catch(() => undefined);
  let recorded: Array<{
    action: string;
    record_id: string;
    outcome: string;
    detail: { count: number; complete: boolean };
  }> = [];
  while (recorded.length < 2) {
    recorded = await trailRows(knex);
    if (recorded.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.like(recorded[1], {
    action: 'audit.export_end',
    record_id: recorded[0]!.record_id,
    outcome: 'failed',
    detail: { complete: false },
  });
  t.true(recorded[1]!.detail.count < 20_000);
});

test('an export whose start cannot be recorded does not start: an error, no event sent', async (t) => {
  const { knex, base, token } = await setup(t);
  // Stands in for a trail that cannot take the row (a full disk, a revoked grant): every insert
  // of an export's start fails, nothing else does.
  await knex.raw(`create function refuse_export_start() returns trigger language plpgsql as $$
    begin
      if new.action = 'audit.export' then raise exception 'the trail is not writable'; end if;
      return new;
    end $$`);
  await knex.raw(`create trigger refuse_export_start before insert on core_audit_event
    for each row execute function refuse_export_start()`);
  const answer = await call(base, 'GET', '/api/v1/audit?patient=42&format=ndjson', { token });
  t.is(answer.status, 500, answer.text);
  t.false(answer.text.includes('"patientId"'), 'no event was sent');
  t.deepEqual(await trailRows(knex), []);
});

test('a refused or bad request records no read', async (t) => {
  const { knex, base, token } = await setup(t);
  t.is((await call(base, 'GET', '/api/v1/audit?since=yesterday', { token })).status, 400);
  t.deepEqual(await trailRows(knex), []);
});
