import test from 'ava';
import { inBatches, planItem, PreviewBuilder } from '../../../modules/migration_import/lib/index.ts';
import type { ImportPatient, PlanStep, Values } from '../../../modules/migration_import/lib/index.ts';
import { collect } from './helpers.ts';

const values: Values<'patient'> = {
  mrn: 'MRN-1',
  familyName: 'Lee',
  givenName: 'Wei',
  birthDate: '1990-01-02',
  sex: 'male',
  address: { lines: ['1 Main St'], city: 'Boston' },
};
const incoming: ImportPatient = { sourceId: 'p1', ...values };
const item = (record: ImportPatient = incoming) => ({ kind: 'patient' as const, row: 2, record });

test('no mapping yet: create, with nothing before', (t) => {
  t.deepEqual(planItem(item(), null), {
    kind: 'patient',
    row: 2,
    sourceId: 'p1',
    action: 'create',
    wardId: null,
    before: null,
    after: values,
    changes: [],
  });
});

test('a re-run over an unchanged record skips it', (t) => {
  t.like(planItem(item(), { wardId: 7, values }), {
    action: 'skip',
    wardId: 7,
    before: values,
    after: values,
    changes: [],
  });
});

test('a changed field updates, listing each change', (t) => {
  const step = planItem(item({ ...incoming, familyName: 'Li' }), { wardId: 7, values });
  t.like(step, { action: 'update', wardId: 7, after: { ...values, familyName: 'Li' } });
  t.deepEqual(step.changes, [{ field: 'familyName', before: 'Lee', after: 'Li' }]);
});

test('fields the source does not carry keep the value staff entered', (t) => {
  const inWard = { ...values, phone: '555-0100' };
  t.like(planItem(item(), { wardId: 7, values: inWard }), { action: 'skip', after: inWard });
});

test('an address the source carries replaces the whole address', (t) => {
  const inWard = { ...values, address: { lines: ['9 Old Rd'], city: 'Boston', postalCode: '02110' } };
  const step = planItem(item(), { wardId: 7, values: inWard });
  t.deepEqual(step.changes, [{ field: 'address', before: inWard.address, after: incoming.address }]);
});

test("an address that only leaves out parts of Ward's is the same address, and keeps them", (t) => {
  const inWard = { ...values, address: { ...incoming.address!, country: 'US' } };
  t.like(planItem(item(), { wardId: 7, values: inWard }), { action: 'skip', after: inWard });
});

test('preview counts every step per kind and keeps only the first steps of each action', (t) => {
  const preview = new PreviewBuilder(2);
  const steps: PlanStep[] = [
    planItem(item(), null),
    planItem(item({ ...incoming, sourceId: 'p2' }), null),
    planItem(item({ ...incoming, sourceId: 'p3' }), null),
    planItem(item(), { wardId: 1, values }),
    planItem({ kind: 'appointment', row: 9, record: {
      sourceId: 'a1', patientSourceId: 'p1', practitionerName: 'Dr', start: 's', end: 'e', status: 'booked',
    } }, null), // prettier-ignore
  ];
  for (const step of steps) preview.add(step);
  const result = preview.result();
  t.deepEqual(result.counts, {
    patient: { create: 3, update: 0, skip: 1 },
    appointment: { create: 1, update: 0, skip: 0 },
    document: { create: 0, update: 0, skip: 0 },
  });
  t.deepEqual(result.totals, { create: 4, update: 0, skip: 1 });
  t.deepEqual(
    result.samples.create.map((step) => step.sourceId),
    ['p1', 'p2'],
  );
  t.deepEqual(result.samples.skip, [steps[3]]);
  preview.add(steps[3]!);
  t.is(result.totals.skip, 1, 'a result is a snapshot, not a live view');
});

test('inBatches groups a stream without losing the tail', async (t) => {
  async function* numbers() {
    yield* [1, 2, 3, 4, 5];
  }
  t.deepEqual(await collect(inBatches(numbers(), 2)), [[1, 2], [3, 4], [5]]);
});
