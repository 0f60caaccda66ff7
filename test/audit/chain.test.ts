import test from 'ava';
import canonicalizeModule from 'canonicalize';
import fc from 'fast-check';
import {
  actorUserId,
  canonicalParts,
  canonicalText,
  chainHash,
  GENESIS,
  jsonDetail,
  linksTo,
  type AuditFields,
  type StoredRow,
} from '../../src/audit/chain.ts';

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const fields: fc.Arbitrary<AuditFields> = fc.record({
  at: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
  actor: fc.string(),
  userId: nullable(fc.nat()),
  action: fc.string(),
  module: nullable(fc.string()),
  kind: nullable(fc.string()),
  recordId: nullable(fc.string()),
  patientId: nullable(fc.string()),
  patientIds: nullable(fc.array(fc.string(), { minLength: 1, maxLength: 5 })),
  client: nullable(fc.string()),
  outcome: fc.constantFrom('ok' as const, 'refused' as const, 'failed' as const),
  detail: fc.jsonValue().map(jsonDetail),
});

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string;

function chain(rows: AuditFields[]): StoredRow[] {
  let prev: Buffer = GENESIS;
  return rows.map((row, index) => {
    prev = chainHash(prev, row);
    return { ...row, id: String(index + 1), hash: prev };
  });
}

/** The id of the first row that does not link, or null. */
function firstBroken(rows: StoredRow[]): string | null {
  let prev: Buffer = GENESIS;
  for (const row of rows) {
    if (!linksTo(prev, row)) return row.id;
    prev = row.hash;
  }
  return null;
}

test('the canonical text does not depend on the order of detail keys', (t) => {
  fc.assert(
    fc.property(fields, fc.dictionary(fc.string(), fc.jsonValue()), (row, detail) => {
      const reversed = Object.fromEntries(Object.entries(detail).reverse());
      t.is(
        canonicalText({ ...row, detail: jsonDetail(detail) }),
        canonicalText({ ...row, detail: jsonDetail(reversed) }),
      );
    }),
  );
});

test('the parts the database joins around the time are the canonical text, in either form', (t) => {
  fc.assert(
    fc.property(fields, (row) => {
      const { head, tail } = canonicalParts(row);
      const common = [
        row.at.toISOString(),
        row.actor,
        row.userId,
        row.action,
        row.module,
        row.kind,
        row.recordId,
        row.patientId,
        row.client,
        row.outcome,
        row.detail,
      ];
      const expected = canonicalize(
        row.patientIds === null ? [1, ...common] : [2, ...common, row.patientIds],
      );
      t.is(head + row.at.toISOString() + tail, expected);
      t.is(canonicalText(row), expected);
    }),
  );
});

test('setting, clearing or changing the patients a row lists breaks the chain at that row', (t) => {
  fc.assert(
    fc.property(
      fc.array(fields, { minLength: 1, maxLength: 10 }),
      fc.nat(),
      nullable(fc.array(fc.string(), { minLength: 1, maxLength: 5 })),
      (rows, pick, patientIds) => {
        const stored = chain(rows);
        const index = pick % stored.length;
        fc.pre(JSON.stringify(stored[index]!.patientIds) !== JSON.stringify(patientIds));
        stored[index] = { ...stored[index]!, patientIds };
        return firstBroken(stored) === String(index + 1);
      },
    ),
  );
  t.pass();
});

test('a chain written in order verifies from its first row', (t) => {
  fc.assert(fc.property(fc.array(fields, { maxLength: 20 }), (rows) => firstBroken(chain(rows)) === null));
  t.pass();
});

test('changing any field of a row breaks the chain at that row', (t) => {
  const keys = ['actor', 'action', 'module', 'kind', 'recordId', 'patientId', 'client'] as const;
  fc.assert(
    fc.property(
      fc.array(fields, { minLength: 1, maxLength: 10 }),
      fc.nat(),
      fc.constantFrom(...keys),
      fc.string(),
      (rows, pick, key, value) => {
        const stored = chain(rows);
        const index = pick % stored.length;
        fc.pre(stored[index]![key] !== value);
        stored[index] = { ...stored[index]!, [key]: value };
        return firstBroken(stored) === String(index + 1);
      },
    ),
  );
  t.pass();
});

test('removing a row breaks the chain at the row after it', (t) => {
  fc.assert(
    fc.property(fc.array(fields, { minLength: 2, maxLength: 10 }), fc.nat(), (rows, pick) => {
      const stored = chain(rows);
      const index = pick % (stored.length - 1);
      stored.splice(index, 1);
      return firstBroken(stored) === String(index + 2);
    }),
  );
  t.pass();
});

test('changing the detail or the time of a row breaks the chain at that row', (t) => {
  const [one, two] = chain([
    {
      at: new Date('2026-01-01T00:00:00Z'),
      actor: 'system',
      userId: null,
      action: 'record.update',
      module: 'patients',
      kind: 'patient',
      recordId: '1',
      patientId: '1',
      patientIds: null,
      client: null,
      outcome: 'ok',
      detail: { changes: { phone: ['1', '2'] } },
    },
    {
      at: new Date('2026-01-01T00:00:01Z'),
      actor: 'system',
      userId: null,
      action: 'record.read',
      module: 'patients',
      kind: 'patient',
      recordId: '1',
      patientId: '1',
      patientIds: null,
      client: null,
      outcome: 'ok',
      detail: null,
    },
  ]);
  t.is(firstBroken([{ ...one!, detail: { changes: { phone: ['1', '3'] } } }, two!]), '1');
  t.is(firstBroken([{ ...one!, at: new Date('2026-01-01T00:00:00.001Z') }, two!]), '1');
});

test('a user actor names its user id; others name none', (t) => {
  t.is(actorUserId('user:7:session:0123456789abcdef'), 7);
  t.is(actorUserId('user:12:token:3'), 12);
  t.is(actorUserId('cli:alice'), null);
  t.is(actorUserId('job:migration_import:4'), null);
  t.is(actorUserId('system'), null);
});
