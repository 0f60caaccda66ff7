/**
 * Reading the audit trail: filters are checked once (bad ones named, with a hint), the SQL binds
 * every value, and paging by cursor through a real table returns exactly the matching rows, newest
 * first, each once, whatever the filters and the page size.
 */
import test from 'ava';
import fc from 'fast-check';
import { readAuditPage } from '../../src/audit/read.ts';
import {
  AuditFilterError,
  decodeCursor,
  encodeCursor,
  pageQuery,
  parseFilter,
  parseInstant,
  parseLimit,
  type AuditFilter,
} from '../../src/audit/query.ts';
import { addUser, installedDatabase } from '../helpers/app.ts';
import { insertAuditRows, type TestAuditRow } from '../helpers/audit.ts';

const filterArbitrary: fc.Arbitrary<AuditFilter> = fc.record(
  {
    patientId: fc.string({ minLength: 1, maxLength: 20 }),
    userId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    actor: fc.constantFrom('system', 'cli:alice', 'user:7', "cli:o'brien"),
    action: fc.constantFrom('record.read', 'record', 'auth.sign_in', 'import'),
    since: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
    until: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
  },
  { requiredKeys: [] },
);

test('the SQL binds every value: no filter text reaches the SQL, and placeholders match bindings', (t) => {
  fc.assert(
    fc.property(
      filterArbitrary,
      fc.option(fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }).map(String), { nil: null }),
      fc.integer({ min: 1, max: 200 }),
      (filter, before, limit) => {
        const { sql, bindings } = pageQuery({ filter, before, limit });
        t.is((sql.match(/\?/g) ?? []).length, bindings.length);
        if (filter.patientId !== undefined && filter.patientId.length > 3)
          t.false(sql.includes(filter.patientId));
        t.false(sql.includes("'"));
        t.true(sql.endsWith('order by id desc limit ?'));
        t.is(bindings.at(-1), limit + 1);
      },
    ),
  );
});

test('a cursor carries the id it was made from, and anything else is refused as a bad cursor', (t) => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }), (id) => {
      t.is(decodeCursor(encodeCursor(String(id))), String(id));
    }),
  );
  for (const bad of [
    '',
    'abc',
    encodeCursor('0'),
    encodeCursor('-1'),
    encodeCursor('9223372036854775808'),
    'a b',
  ]) {
    const error = t.throws(() => decodeCursor(bad), { instanceOf: AuditFilterError });
    t.is(error?.parameter, 'cursor');
  }
});

test('ISO dates: a date is midnight UTC; a date-time needs its offset; impossible dates are refused', (t) => {
  t.is(parseInstant('since', '2026-11-27').toISOString(), '2026-11-27T00:00:00.000Z');
  t.is(parseInstant('since', '2026-11-27T10:30:00+01:00').toISOString(), '2026-11-27T09:30:00.000Z');
  t.is(parseInstant('since', '2026-11-27T09:30Z').toISOString(), '2026-11-27T09:30:00.000Z');
  for (const bad of [
    'yesterday',
    '2026-11-27T09:30:00',
    '2026-02-30',
    '2026-13-01',
    '27/11/2026',
    '2026-11-27T25:00Z',
  ]) {
    const error = t.throws(() => parseInstant('since', bad), { instanceOf: AuditFilterError });
    t.regex(error?.message ?? '', /^since is not an ISO 8601 date/);
    t.regex(error?.hint ?? '', /2026-11-27T09:30:00Z/);
  }
});

test('bad filters are named with a hint: actor, action, an empty value, until not after since, a limit', (t) => {
  const cases: Array<[() => unknown, string]> = [
    [() => parseFilter({ actor: 'User 7' }), 'actor'],
    [() => parseFilter({ action: 'record.' }), 'action'],
    [() => parseFilter({ patient: '' }), 'patient'],
    [() => parseFilter({ since: '2026-11-28', until: '2026-11-27' }), 'until'],
    [() => parseLimit('limit', '0'), 'limit'],
    [() => parseLimit('limit', '201'), 'limit'],
    [() => parseLimit('limit', 'ten'), 'limit'],
  ];
  for (const [parse, parameter] of cases) {
    const error = t.throws(parse, { instanceOf: AuditFilterError });
    t.is(error?.parameter, parameter);
    t.is(error?.code, 'invalid_audit_filter');
    t.true((error?.hint.length ?? 0) > 0);
  }
  t.deepEqual(parseFilter({ patient: '42', actor: 'user:7', action: 'record' }), {
    patientId: '42',
    actor: 'user:7',
    action: 'record',
  });
});

const ACTORS = [
  'system',
  'cli:alice',
  'user:A:session:ab12',
  'user:A:token:3',
  'user:B:session:cd34',
  'job:9',
];
const ACTIONS = ['record.read', 'record.update', 'record.list', 'auth.sign_in', 'import.execute'];
const START = Date.parse('2026-11-01T00:00:00Z');

/** What the query should find, computed in memory. */
function matches(filter: AuditFilter, row: TestAuditRow): boolean {
  const at = row.at?.getTime() ?? 0;
  return (
    (filter.patientId === undefined ||
      row.patient_id === filter.patientId ||
      (row.patient_ids ?? []).includes(filter.patientId)) &&
    (filter.userId === undefined || row.user_id === filter.userId) &&
    (filter.actor === undefined || row.actor === filter.actor || row.actor.startsWith(`${filter.actor}:`)) &&
    (filter.action === undefined ||
      (filter.action.includes('.')
        ? row.action === filter.action
        : row.action.startsWith(`${filter.action}.`))) &&
    (filter.since === undefined || at >= filter.since.getTime()) &&
    (filter.until === undefined || at < filter.until.getTime())
  );
}

test('paging by cursor returns exactly the matching rows, newest first, each once, lists of patients included', async (t) => {
  const { knex } = await installedDatabase(t);
  const alice = await addUser(knex, 'alice', ['admin']);
  const bob = await addUser(knex, 'bob', []);
  const rows: TestAuditRow[] = Array.from({ length: 240 }, (_, i) => {
    const actor = (ACTORS[(i * 7) % ACTORS.length] as string)
      .replace('A', String(alice))
      .replace('B', String(bob));
    const user = /^user:(\d+)/.exec(actor);
    return {
      at: new Date(START + i * 3_600_000),
      actor,
      user_id: user === null ? null : Number(user[1]),
      action: ACTIONS[(i * 3) % ACTIONS.length] as string,
      patient_id: i % 4 === 0 ? null : String(i % 5),
      // Lists and batches: some name no patient of their own, some also name theirs among others.
      patient_ids: i % 3 === 0 ? [String(i % 7), String((i + 2) % 5)] : null,
      module: 'patients',
      kind: 'patient',
      record_id: String(i % 5),
    };
  });
  const ids = await insertAuditRows(knex, rows);
  const when = fc.integer({ min: -24, max: 264 }).map((hours) => new Date(START + hours * 3_600_000));
  const filters = fc.record(
    {
      patientId: fc.constantFrom('1', '2', '3', '4', '99'),
      userId: fc.constantFrom(alice, bob, bob + 1),
      actor: fc.constantFrom(`user:${alice}`, 'cli:alice', 'system', 'job:9', 'user'),
      action: fc.constantFrom(...ACTIONS, 'record', 'auth', 'nothing'),
      since: when,
      until: when,
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(filters, fc.integer({ min: 1, max: 60 }), async (filter, limit) => {
      const expected = ids.filter((_, i) => matches(filter, rows[i] as TestAuditRow)).reverse();
      const seen: string[] = [];
      let before: string | null = null;
      for (;;) {
        const page = await readAuditPage(knex, { filter, before, limit });
        t.true(page.items.length <= limit);
        seen.push(...page.items.map((item) => item.id));
        for (const item of page.items)
          t.is(item.username, item.userId === null ? null : item.userId === alice ? 'alice' : 'bob');
        if (page.nextCursor === null) break;
        t.is(page.items.length, limit, 'only the last page is short');
        before = decodeCursor(page.nextCursor);
      }
      t.deepEqual(seen, expected, JSON.stringify(filter));
    }),
    { numRuns: 40 },
  );
});
