/**
 * GET /api/v1/audit: only holders of base.audit.read (admin by default); "every access to this
 * patient" and "everything this user did" page newest first by cursor; exports stream NDJSON and
 * FHIR AuditEvents; bad filters are 400s in the error shape that change nothing.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';
import { insertAuditRows, type TestAuditRow } from '../helpers/audit.ts';

interface Page {
  items: Array<{
    id: string;
    actor: string;
    username: string | null;
    patientId: string | null;
    patientIds: string[] | null;
    action: string;
  }>;
  nextCursor: string | null;
}

async function setup(t: Parameters<typeof installedDatabase>[0]) {
  const { knex } = await installedDatabase(t);
  const alice = await addUser(knex, 'alice', ['admin']);
  const carol = await addUser(knex, 'carol', ['clinician']);
  const rows: TestAuditRow[] = [];
  for (let i = 0; i < 30; i++)
    rows.push({
      at: new Date(Date.UTC(2026, 10, 1 + (i % 28))),
      actor: i % 2 === 0 ? `user:${carol}:session:ab12` : 'cli:root',
      user_id: i % 2 === 0 ? carol : null,
      action: i % 3 === 0 ? 'record.update' : 'record.read',
      module: 'patients',
      kind: 'patient',
      record_id: String(i % 3),
      patient_id: String(i % 3),
      client: i % 2 === 0 ? '10.0.0.7' : null,
      detail: i % 3 === 0 ? { changes: { phone: ['1', '2'] } } : null,
    });
  const ids = await insertAuditRows(knex, rows);
  const { base } = await startApp(t, knex, {
    grants: { roles: { clinician: ['base.user.read'] } },
  });
  const { token } = await signIn(base, 'alice');
  return { knex, base, token, ids, rows, alice, carol };
}

const count = async (knex: Knex) =>
  Number(((await knex('core_audit_event').count('* as n')) as Array<{ n: string }>)[0]?.n);

test('a clinician without base.audit.read is refused with 403 permission denied', async (t) => {
  const { base } = await setup(t);
  const carol = await signIn(base, 'carol');
  for (const query of ['', '?patient=1', '?format=ndjson']) {
    const answer = await call(base, 'GET', `/api/v1/audit${query}`, { token: carol.token });
    t.is(answer.status, 403, answer.text);
    t.like(answer.body, {
      error: { code: 'permission_denied', message: 'permission denied: base.audit.read' },
    });
  }
  t.is((await call(base, 'GET', '/api/v1/audit')).status, 401);
});

test('every access to a patient, lists that showed them included, newest first, page by page through nextCursor', async (t) => {
  const { knex, base, token, ids, rows } = await setup(t);
  // Lists of patients, one showing patient 1 among others, one not.
  const lists: TestAuditRow[] = [['1', '2'], ['2'], ['0', '1']].map((shown) => ({
    actor: 'cli:root',
    action: 'record.list',
    module: 'patients',
    kind: 'patient',
    patient_ids: shown,
    detail: { ids: shown.map(Number) },
  }));
  ids.push(...(await insertAuditRows(knex, lists)));
  rows.push(...lists);
  const expected = ids
    .filter((_, i) => rows[i]?.patient_id === '1' || (rows[i]?.patient_ids ?? []).includes('1'))
    .reverse();
  t.is(expected.length, 12);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `?patient=1&limit=4${cursor === null ? '' : `&cursor=${cursor}`}`;
    const answer = await call(base, 'GET', `/api/v1/audit${query}`, { token });
    t.is(answer.status, 200, answer.text);
    const page = answer.body as Page;
    t.true(page.items.every((item) => item.patientId === '1' || (item.patientIds ?? []).includes('1')));
    seen.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null);
  t.deepEqual(seen, expected);
  t.is(pages, Math.ceil(expected.length / 4));
});

test('everything a user did: by username, through any session or token, with the name shown', async (t) => {
  const { base, token, ids, rows, carol } = await setup(t);
  const answer = await call(base, 'GET', '/api/v1/audit?user=carol&limit=200', { token });
  t.is(answer.status, 200, answer.text);
  const page = answer.body as Page;
  t.deepEqual(
    page.items.map((item) => item.id),
    ids.filter((_, i) => rows[i]?.user_id === carol).reverse(),
  );
  t.true(page.items.every((item) => item.username === 'carol'));
  t.is(page.nextCursor, null);
  const byActor = (
    await call(base, 'GET', `/api/v1/audit?actor=user:${carol}&action=record.update`, { token })
  ).body as Page;
  t.true(byActor.items.length > 0);
  t.true(
    byActor.items.every((item) => item.action === 'record.update' && item.actor.startsWith(`user:${carol}:`)),
  );
  const since = (await call(base, 'GET', '/api/v1/audit?since=2026-11-20&until=2026-11-22', { token }))
    .body as Page;
  t.deepEqual(
    since.items.map((item) => item.id),
    ids
      .filter((_, i) => {
        const at = rows[i]?.at?.toISOString() ?? '';
        return at >= '2026-11-20' && at < '2026-11-22';
      })
      .reverse(),
  );
});

test('exports stream every matching event as NDJSON or as FHIR AuditEvent resources', async (t) => {
  const { base, token, ids, rows } = await setup(t);
  const ndjson = await call(base, 'GET', '/api/v1/audit?patient=2&format=ndjson', { token });
  t.is(ndjson.status, 200, ndjson.text);
  t.regex(ndjson.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  t.regex(
    ndjson.headers.get('content-disposition') ?? '',
    /attachment; filename="audit-\d{4}-\d{2}-\d{2}\.ndjson"/,
  );
  const lines = ndjson.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; hash: string });
  t.deepEqual(
    lines.map((line) => line.id),
    ids.filter((_, i) => rows[i]?.patient_id === '2').reverse(),
  );
  t.true(lines.every((line) => /^[0-9a-f]{64}$/.test(line.hash)));

  const fhir = await call(base, 'GET', '/api/v1/audit?format=fhir&limit=5&action=record', { token });
  t.is(fhir.status, 200, fhir.text);
  t.regex(fhir.headers.get('content-type') ?? '', /^application\/fhir\+ndjson/);
  const resources = fhir.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  t.is(resources.length, 5);
  t.like(resources[0], {
    resourceType: 'AuditEvent',
    id: ids.at(-1),
    source: { observer: { display: 'Ward' } },
  });
  const empty = await call(base, 'GET', '/api/v1/audit?patient=nobody&format=ndjson', { token });
  t.is(empty.status, 200);
  t.is(empty.text, '');
});

test('bad filters are 400 invalid_query naming the parameter, with a hint, and change nothing', async (t) => {
  const { knex, base, token } = await setup(t);
  const before = await count(knex);
  const cases: Array<[string, RegExp]> = [
    ['since=yesterday', /^the query parameter since is not an ISO 8601 date/],
    ['until=2026-11-27T09:30:00', /^the query parameter until is not an ISO 8601 date/],
    ['since=2026-11-28&until=2026-11-27', /^the query parameter until \(2026-11-27\) is not after since/],
    ['format=csv', /^the query parameter format is not a format: "csv"/],
    ['limit=0', /^the query parameter limit must be an integer from 1 to 200/],
    ['cursor=bogus', /^the query parameter cursor is not a cursor this list gave out/],
    ['user=nobody', /^the query parameter user names no user: "nobody"/],
    ['action=Record%20Read', /^the query parameter action is not an action/],
    ['patient=1&patient=2', /^the query parameter patient is given more than once/],
    ['patien=1', /^the query parameter patien is not one this route reads/],
  ];
  for (const [query, message] of cases) {
    const answer = await call(base, 'GET', `/api/v1/audit?${query}`, { token });
    t.is(answer.status, 400, `${query}: ${answer.text}`);
    const error = (answer.body as { error: { code: string; message: string; hint: string } }).error;
    t.is(error.code, 'invalid_query', query);
    t.regex(error.message, message, query);
    t.true(error.hint.length > 0, query);
  }
  t.is(await count(knex), before, 'nothing written');
});
