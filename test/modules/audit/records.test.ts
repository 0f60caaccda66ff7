/**
 * The clinic modules record in the audit trail: every read, list, download, create, update and
 * delete of a patient, appointment or document, with the caller as actor and the object named;
 * refusals (403, 409) as refused rows; and the chain stays intact.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { verifyChain } from '../../../src/audit/verify.ts';
import { api, clinic } from '../helpers.ts';

interface Row {
  id: string;
  actor: string;
  user_id: number | null;
  action: string;
  module: string | null;
  kind: string | null;
  record_id: string | null;
  patient_id: string | null;
  patient_ids: string[] | null;
  client: string | null;
  outcome: string;
  detail: Record<string, unknown> | null;
}

/** What requests recorded: the clinic's setup (installs, users, tokens) is recorded as `system`. */
const rows = (knex: Knex) =>
  knex('core_audit_event').whereNot({ actor: 'system' }).orderBy('id').select() as Promise<Row[]>;

async function userIdOf(knex: Knex, username: string): Promise<number> {
  return ((await knex('base_user').where({ username }).first('id')) as { id: number }).id;
}

test('patient reads, lists, creates and updates are recorded with the caller and the changed fields', async (t) => {
  const { base, knex, as } = await clinic(t);
  const admin = as('admin');
  const adminId = await userIdOf(knex, 'admin');
  const created = await api(base, admin, 'POST', '/api/v1/patients/patients', {
    json: { mrn: 'A-1', familyName: 'Okafor', givenName: 'Ada' },
  });
  const id = (created.body as { id: number }).id;
  await api(base, admin, 'GET', `/api/v1/patients/patients/${id}`);
  await api(base, admin, 'PATCH', `/api/v1/patients/patients/${id}`, { json: { phone: '+44 1' } });
  await api(base, admin, 'GET', '/api/v1/patients/patients?q=okafor');

  const [create, read, update, list] = await rows(knex);
  const who = { user_id: adminId, module: 'patients', kind: 'patient', outcome: 'ok' };
  t.regex(create!.actor, new RegExp(`^user:${adminId}:token:\\d+$`));
  t.truthy(create!.client);
  t.like(create, { ...who, action: 'record.create', record_id: String(id), patient_id: String(id) });
  t.like(create!.detail, { changes: { mrn: [null, 'A-1'], familyName: [null, 'Okafor'] } });
  t.like(read, {
    ...who,
    action: 'record.read',
    record_id: String(id),
    patient_id: String(id),
    detail: null,
  });
  t.deepEqual(update!.detail, { changes: { phone: [null, '+44 1'] } });
  t.like(list, { ...who, action: 'record.list', record_id: null, patient_id: null });
  t.deepEqual(list!.detail, { ids: [id] });
  t.deepEqual(list!.patient_ids, [String(id)], 'the list names the patients it showed');
  t.false(JSON.stringify(list).includes('okafor'), 'the search words stay out of the trail');
  t.like(await verifyChain(knex), { intact: true });
});

test('appointment and document reads, writes and downloads are recorded with their patient', async (t) => {
  const { base, knex, as } = await clinic(t);
  const admin = as('admin');
  const patient = (
    (
      await api(base, admin, 'POST', '/api/v1/patients/patients', {
        json: { mrn: 'B-1', familyName: 'Lee', givenName: 'Min' },
      })
    ).body as { id: number }
  ).id;
  const practitioner = (
    (await api(base, admin, 'POST', '/api/v1/appointments/practitioners', { json: { name: 'Dr Who' } }))
      .body as { id: number }
  ).id;
  const booked = await api(base, admin, 'POST', '/api/v1/appointments/appointments', {
    json: {
      patientId: patient,
      practitionerId: practitioner,
      startAt: '2030-01-01T09:00:00Z',
      endAt: '2030-01-01T09:30:00Z',
    },
  });
  t.is(booked.status, 201, booked.text);
  const appointment = (booked.body as { id: number }).id;
  await api(base, admin, 'GET', `/api/v1/appointments/appointments/${appointment}`);
  await api(base, admin, 'PATCH', `/api/v1/appointments/appointments/${appointment}`, {
    json: { status: 'cancelled', cancellationReason: 'ill' },
  });
  await api(base, admin, 'GET', `/api/v1/appointments/appointments?patientId=${patient}`);
  const uploaded = await api(
    base,
    admin,
    'POST',
    `/api/v1/documents/patients/${patient}/documents?title=Letter`,
    {
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    },
  );
  t.is(uploaded.status, 201, uploaded.text);
  const document = (uploaded.body as { id: number }).id;
  await api(base, admin, 'GET', `/api/v1/documents/documents/${document}`);
  await api(base, admin, 'GET', `/api/v1/documents/documents/${document}/content`);
  await api(base, admin, 'GET', `/api/v1/documents/patients/${patient}/documents`);
  t.is((await api(base, admin, 'DELETE', `/api/v1/documents/documents/${document}`)).status, 204);

  const seen = (await rows(knex))
    .slice(2)
    .map((row) => [row.action, row.module, row.kind, row.record_id, row.patient_id, row.patient_ids]);
  const p = String(patient);
  t.deepEqual(seen, [
    ['record.create', 'appointments', 'appointment', String(appointment), p, null],
    ['record.read', 'appointments', 'appointment', String(appointment), p, null],
    ['record.update', 'appointments', 'appointment', String(appointment), p, null],
    // Asked of one patient: theirs, so it needs no list of others.
    ['record.list', 'appointments', 'appointment', null, p, null],
    ['record.create', 'documents', 'document', String(document), p, null],
    ['record.read', 'documents', 'document', String(document), p, null],
    ['record.download', 'documents', 'document', String(document), p, null],
    ['record.list', 'documents', 'document', null, p, null],
    ['record.delete', 'documents', 'document', String(document), p, null],
  ]);
  // A list of every patient's appointments names the patients it showed.
  await api(base, admin, 'GET', '/api/v1/appointments/appointments?from=2029-01-01T00:00:00Z');
  const all = (await rows(knex)).at(-1)!;
  t.like(all, { action: 'record.list', kind: 'appointment', patient_id: null });
  t.deepEqual(all.patient_ids, [p]);
  const update = (await rows(knex))[4]!;
  t.like(update.detail, { changes: { status: ['booked', 'cancelled'], cancellationReason: [null, 'ill'] } });
  t.like(await verifyChain(knex), { intact: true });
});

test('a refused request leaves a refused row and no change; a conflict too', async (t) => {
  const { base, knex, as } = await clinic(t);
  const nobodyId = await userIdOf(knex, 'nobody');
  const denied = await api(base, as('nobody'), 'GET', '/api/v1/patients/patients/5');
  t.is(denied.status, 403);
  const admin = as('admin');
  await api(base, admin, 'POST', '/api/v1/patients/patients', {
    json: { mrn: 'C-1', familyName: 'A', givenName: 'B' },
  });
  const duplicate = await api(base, admin, 'POST', '/api/v1/patients/patients', {
    json: { mrn: 'C-1', familyName: 'A', givenName: 'B' },
  });
  t.is(duplicate.status, 409);
  const [refusal, , conflict, ...rest] = await rows(knex);
  t.like(refusal, {
    user_id: nobodyId,
    action: 'record.read',
    module: 'patients',
    record_id: '5',
    outcome: 'refused',
    detail: { status: 403, code: 'permission_denied', method: 'GET', route: '/api/v1/patients/patients/:id' },
  });
  t.like(conflict, {
    action: 'record.create',
    module: 'patients',
    outcome: 'refused',
    detail: { status: 409, code: 'conflict' },
  });
  t.deepEqual(rest, [], 'the rolled-back create left no row');
  t.is((await knex('patients_patient').select()).length, 1);
});

test('practitioner creates, changes, aliases and deletes are recorded with the fields before and after', async (t) => {
  const { base, knex, as } = await clinic(t);
  const admin = as('admin');
  const adminId = await userIdOf(knex, 'admin');
  const created = await api(base, admin, 'POST', '/api/v1/appointments/practitioners', {
    json: { name: 'Dr Cho', specialty: 'GP' },
  });
  t.is(created.status, 201, created.text);
  const id = (created.body as { id: number }).id;
  const changed = await api(base, admin, 'PATCH', `/api/v1/appointments/practitioners/${id}`, {
    json: { name: 'Dr Mei Cho', active: false },
  });
  t.is(changed.status, 200, changed.text);
  const alias = await api(base, admin, 'POST', `/api/v1/appointments/practitioners/${id}/aliases`, {
    json: { name: 'PRV-7' },
  });
  t.is(alias.status, 201, alias.text);
  const taken = await api(base, admin, 'POST', `/api/v1/appointments/practitioners/${id}/aliases`, {
    json: { name: 'prv 7' },
  });
  t.is(taken.status, 409, taken.text);
  t.is((await api(base, admin, 'DELETE', `/api/v1/appointments/practitioners/${id}`)).status, 204);

  const [create, update, aliased, refusal, removed, ...rest] = await rows(knex);
  const who = { user_id: adminId, module: 'appointments', kind: 'practitioner', record_id: String(id) };
  t.like(create, { ...who, action: 'record.create', outcome: 'ok', patient_id: null });
  t.regex(create!.actor, new RegExp(`^user:${adminId}:token:\\d+$`));
  t.deepEqual(create!.detail, {
    changes: { id: [null, id], name: [null, 'Dr Cho'], specialty: [null, 'GP'], active: [null, true] },
  });
  t.like(update, { ...who, action: 'record.update', outcome: 'ok' });
  t.deepEqual(update!.detail, { changes: { name: ['Dr Cho', 'Dr Mei Cho'], active: [true, false] } });
  t.like(aliased, { ...who, action: 'record.update', outcome: 'ok' });
  t.deepEqual(aliased!.detail, { changes: { alias: [null, 'PRV-7'] } });
  t.like(refusal, { outcome: 'refused', detail: { status: 409, code: 'practitioner_name_taken' } });
  t.like(removed, { ...who, action: 'record.delete', outcome: 'ok' });
  t.like(removed!.detail, { changes: { id: [id, null], name: ['Dr Mei Cho', null], active: [false, null] } });
  t.deepEqual(rest, []);
  t.like(await verifyChain(knex), { intact: true });
});

test('a practitioner write that is refused leaves no change row', async (t) => {
  const { base, knex, as } = await clinic(t);
  const admin = as('admin');
  const first = await api(base, admin, 'POST', '/api/v1/appointments/practitioners', {
    json: { name: 'Dr Cho' },
  });
  t.is(first.status, 201, first.text);
  const same = await api(base, admin, 'POST', '/api/v1/appointments/practitioners', {
    json: { name: 'dr. cho' },
  });
  t.is(same.status, 409, same.text);
  const missing = await api(base, admin, 'PATCH', '/api/v1/appointments/practitioners/999', {
    json: { specialty: 'GP' },
  });
  t.is(missing.status, 404, missing.text);
  const changes = (await rows(knex)).filter((row) => row.kind === 'practitioner' && row.outcome === 'ok');
  t.deepEqual(
    changes.map((row) => row.action),
    ['record.create'],
    'the refused create and the missing practitioner left no change row',
  );
  t.is((await knex('appointments_practitioner').select()).length, 1);
});
