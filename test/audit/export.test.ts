/**
 * Exports: an NDJSON line is one event and one newline whatever the event holds, and every event
 * maps to a FHIR R4 AuditEvent with the elements R4 requires, its patient and record as entities,
 * and the outcome and action in FHIR's codes.
 */
import test from 'ava';
import fc from 'fast-check';
import { OBJECT_MEMBER_NAMES } from '../helpers/object-members.ts';
import {
  ndjsonLine,
  presentEvent,
  toFhirAuditEvent,
  WARD_ACTION_SYSTEM,
  WARD_ACTOR_SYSTEM,
  type AuditEventJson,
} from '../../src/audit/export.ts';

const ACTIONS = [
  'record.read',
  'record.list',
  'record.create',
  'record.update',
  'record.delete',
  'record.download',
  'import.execute',
  'module.install',
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_out',
  'user.password',
  'token.revoke',
  'audit.purge',
];

const eventArbitrary: fc.Arbitrary<AuditEventJson> = fc.record({
  id: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }).map(String),
  at: fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  actor: fc.constantFrom(
    'user:7:session:ab12',
    'user:7:token:3',
    'cli:alice',
    'job:42',
    'system',
    'anonymous',
  ),
  userId: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
  username: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
  action: fc.constantFrom(...ACTIONS),
  module: fc.option(fc.constantFrom('patients', 'documents', 'base'), { nil: null }),
  kind: fc.option(fc.constantFrom('patient', 'document', 'user'), { nil: null }),
  recordId: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: null }),
  patientId: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: null }),
  patientIds: fc.option(
    fc.uniqueArray(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 5 }),
    {
      nil: null,
    },
  ),
  client: fc.option(fc.ipV4(), { nil: null }),
  outcome: fc.constantFrom('ok', 'refused', 'failed'),
  detail: fc.option(fc.jsonValue(), { nil: null }),
  hash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex')),
});

/** Whether `value` holds an empty array or object anywhere (strings may hold `[]`: they are text). */
function hasEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0 || value.some(hasEmpty);
  if (value !== null && typeof value === 'object')
    return Object.keys(value).length === 0 || Object.values(value).some(hasEmpty);
  return false;
}

test('an NDJSON line is the event and one newline, whatever its detail holds', (t) => {
  fc.assert(
    fc.property(eventArbitrary, (event) => {
      const line = ndjsonLine(event);
      t.true(line.endsWith('\n'));
      t.is(line.indexOf('\n'), line.length - 1);
      t.deepEqual(JSON.parse(line), JSON.parse(JSON.stringify(event)));
    }),
  );
});

test('every event maps to an AuditEvent with what FHIR R4 requires and Ward’s action and actor', (t) => {
  fc.assert(
    fc.property(eventArbitrary, (event) => {
      const resource = toFhirAuditEvent(event);
      t.is(resource.resourceType, 'AuditEvent');
      t.is(resource.id, event.id);
      t.is(resource.recorded, event.at);
      t.truthy(resource.type.system && resource.type.code);
      t.true(['C', 'R', 'U', 'D', 'E'].includes(resource.action));
      t.is<string | undefined, string | undefined>(
        resource.outcome,
        { ok: '0', refused: '4', failed: '8' }[event.outcome],
      );
      t.true(
        resource.subtype.some(
          (coding) => coding.system === WARD_ACTION_SYSTEM && coding.code === event.action,
        ),
      );
      t.is(resource.agent.length, 1);
      t.true(resource.agent[0]?.requestor);
      t.deepEqual(resource.agent[0]?.who.identifier, { system: WARD_ACTOR_SYSTEM, value: event.actor });
      t.is(resource.agent[0]?.network?.address, event.client ?? undefined);
      t.is(resource.source.observer.display, 'Ward');
      // The record's patient first, then each other patient a list showed, each once.
      const patients = (resource.entity ?? []).flatMap((entity) =>
        'reference' in entity.what ? [(entity.what as { reference: string }).reference] : [],
      );
      t.deepEqual(
        patients,
        [
          ...new Set([...(event.patientId === null ? [] : [event.patientId]), ...(event.patientIds ?? [])]),
        ].map((id) => `Patient/${id}`),
      );
      const detail = resource.entity?.flatMap((entity) => entity.detail ?? []);
      // As JSON text: what JSON cannot tell apart (-0 and 0) comes back as JSON reads it.
      if (event.detail !== null)
        t.deepEqual(JSON.parse(detail?.[0]?.valueString ?? 'null'), JSON.parse(JSON.stringify(event.detail)));
      else t.deepEqual(detail ?? [], []);
      // FHIR forbids empty arrays and objects: an absent element is left out, never empty.
      t.false(hasEmpty(resource), JSON.stringify(resource));
    }),
  );
});

test('actions map to FHIR codes: reads R, lists a query, downloads an export, sign-in a login', (t) => {
  const base: AuditEventJson = {
    id: '1',
    at: '2026-11-27T09:30:00.000Z',
    actor: 'user:7:session:ab12',
    userId: 7,
    username: 'alice',
    action: 'record.read',
    module: 'patients',
    kind: 'patient',
    recordId: '42',
    patientId: '42',
    patientIds: null,
    client: '10.0.0.5',
    outcome: 'ok',
    detail: null,
    hash: '00'.repeat(32),
  };
  const read = toFhirAuditEvent(base);
  t.like(read, { action: 'R', type: { code: '110110', display: 'Patient Record' }, outcome: '0' });
  t.like(read.agent[0], { altId: 'alice', who: { display: 'alice' } });
  t.like(toFhirAuditEvent({ ...base, action: 'record.list' }), { action: 'E', type: { code: '110112' } });
  t.like(toFhirAuditEvent({ ...base, action: 'record.download' }), { action: 'R', type: { code: '110106' } });
  t.like(toFhirAuditEvent({ ...base, action: 'record.update' }), { action: 'U' });
  const trail = { ...base, module: null, kind: 'audit_trail', recordId: null, patientId: null };
  t.like(toFhirAuditEvent({ ...trail, action: 'audit.read' }), { action: 'R', type: { code: '110112' } });
  t.like(toFhirAuditEvent({ ...trail, action: 'audit.export' }), { action: 'E', type: { code: '110106' } });
  t.like(toFhirAuditEvent({ ...trail, action: 'audit.export_end', outcome: 'failed' }), {
    action: 'E',
    type: { code: '110106' },
    outcome: '8',
  });
  const refused = toFhirAuditEvent({ ...base, outcome: 'refused', detail: { code: 'permission_denied' } });
  t.like(refused, { outcome: '4', outcomeDesc: 'permission_denied' });
  const signIn = toFhirAuditEvent({
    ...base,
    action: 'auth.sign_in',
    patientId: null,
    recordId: null,
    kind: null,
  });
  t.like(signIn, { type: { code: '110114' }, subtype: [{ code: '110122', display: 'Login' }] });
  t.is(signIn.entity, undefined);
});

test('presentEvent shows ids as text, the hash in hex and the user’s name', (t) => {
  const event = presentEvent(
    {
      id: '9007199254740993',
      at: new Date('2026-11-27T09:30:00Z'),
      actor: 'user:7:token:3',
      user_id: 7,
      action: 'record.read',
      module: 'patients',
      kind: 'patient',
      record_id: '42',
      patient_id: '42',
      patient_ids: null,
      client: null,
      outcome: 'ok',
      detail: null,
      hash: Buffer.alloc(32, 0xab),
    },
    new Map([[7, 'alice']]),
  );
  t.like(event, {
    id: '9007199254740993',
    username: 'alice',
    at: '2026-11-27T09:30:00.000Z',
    hash: 'ab'.repeat(32),
  });
});

test('an action, outcome or actor named like an Object member maps as an unknown one', (t) => {
  const base: AuditEventJson = {
    id: '1',
    at: '2026-11-27T09:30:00.000Z',
    actor: 'constructor',
    userId: null,
    username: null,
    action: 'constructor',
    module: null,
    kind: null,
    recordId: null,
    patientId: null,
    patientIds: null,
    client: null,
    outcome: 'toString',
    detail: null,
    hash: '00'.repeat(32),
  };
  for (const name of OBJECT_MEMBER_NAMES) {
    const resource = toFhirAuditEvent({ ...base, actor: name, action: name, outcome: name });
    t.deepEqual(resource.subtype, [{ system: WARD_ACTION_SYSTEM, code: name }]);
    t.is(resource.outcome, '8');
    t.is(resource.agent[0]?.type?.text, name);
  }
});
