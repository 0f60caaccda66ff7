/**
 * Practitioner administration: changing a practitioner's name, specialty, active state and linked
 * user; deleting one no appointment refers to, deactivating one that has appointments; the staff
 * users a practitioner may be linked to. Every refusal is a 4xx in Ward's shape that changes nothing.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { addUser } from '../../helpers/app.ts';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PRACTITIONERS = '/api/v1/appointments/practitioners';
const APPOINTMENTS = '/api/v1/appointments/appointments';
const STAFF = '/api/v1/appointments/staff';

async function world(t: ExecutionContext) {
  const running = await clinic(t);
  const [ada] = await insertPatients(running.knex, [{ mrn: 'A1', family_name: 'Ada', given_name: 'A' }]);
  const add = async (json: object) => {
    const created = await api(running.base, running.as('admin'), 'POST', PRACTITIONERS, { json });
    t.is(created.status, 201, created.text);
    return (created.body as { id: number }).id;
  };
  const cho = await add({ name: 'Dr. Cho', specialty: 'General practice' });
  const ng = await add({ name: 'Dr. Ng' });
  const patch = (id: number, json: object, token = running.as('admin')) =>
    api(running.base, token, 'PATCH', `${PRACTITIONERS}/${id}`, { json });
  const practitioners = async () =>
    (await running
      .knex('appointments_practitioner')
      .orderBy('id')
      .select('name', 'specialty', 'active', 'user_id')) as object[];
  return { ...running, ada: ada!, cho, ng, patch, practitioners };
}

test('a practitioner is created with a specialty, and changed: name, specialty, active, linked user', async (t) => {
  const { base, knex, as, cho, patch } = await world(t);
  t.like((await api(base, as('admin'), 'GET', `${PRACTITIONERS}/${cho}`)).body, {
    name: 'Dr. Cho',
    specialty: 'General practice',
    active: true,
  });
  const userId = await addUser(knex, 'cho', ['clinician']);
  const changed = await patch(cho, { name: ' Dr. Mei Cho ', specialty: '  ', userId });
  t.is(changed.status, 200, changed.text);
  t.deepEqual(changed.body, { id: cho, name: 'Dr. Mei Cho', specialty: null, active: true, userId });
  const off = await patch(cho, { active: false, userId: null });
  t.deepEqual(off.body, { id: cho, name: 'Dr. Mei Cho', specialty: null, active: false, userId: null });
  t.like((await api(base, as('receptionist'), 'GET', PRACTITIONERS)).body, {
    items: [
      { id: cho, active: false },
      { name: 'Dr. Ng', active: true },
    ],
  });
});

test('a renamed practitioner shows the new name on the appointments already booked', async (t) => {
  const { base, as, ada, cho, patch } = await world(t);
  const booked = await api(base, as('receptionist'), 'POST', APPOINTMENTS, {
    json: {
      patientId: ada,
      practitionerId: cho,
      startAt: '2026-03-02T09:00:00Z',
      endAt: '2026-03-02T09:30:00Z',
    },
  });
  t.is(booked.status, 201, booked.text);
  await patch(cho, { name: 'Dr. Mei Cho' });
  const id = (booked.body as { id: number }).id;
  t.like((await api(base, as('receptionist'), 'GET', `${APPOINTMENTS}/${id}`)).body, {
    practitionerId: cho,
    practitionerName: 'Dr. Mei Cho',
  });
});

test('changing a practitioner needs appointments.practitioner.write; bad changes are refused and change nothing', async (t) => {
  const { cho, ng, patch, practitioners, as } = await world(t);
  const before = await practitioners();
  for (const role of ['clinician', 'receptionist'] as const) {
    const refused = await patch(cho, { active: false }, as(role));
    t.is(refused.status, 403, role);
    t.is(errorOf(refused).message, 'permission denied: appointments.practitioner.write');
  }
  const same = await patch(ng, { name: 'dr cho' });
  t.is(same.status, 409);
  t.like(errorOf(same), {
    code: 'practitioner_exists',
    message: `practitioner ${cho} is already called "Dr. Cho", the same name as "dr cho" but for case, accents or punctuation`,
  });
  const cases: Array<[object, number, string]> = [
    [{}, 422, 'the request body is invalid at /: must NOT have fewer than 1 properties'],
    [{ name: '--' }, 422, 'the request body is invalid at /name: must contain a letter or a digit'],
    [{ userId: 999 }, 422, 'the request body is invalid at /userId: there is no user 999'],
    [{ active: 'no' }, 422, 'the request body is invalid at /active: must be a boolean'],
    [
      { colour: 'red' },
      422,
      'the request body is invalid at /colour: unknown field; allowed fields are name, specialty, active, userId',
    ],
  ];
  for (const [json, status, message] of cases) {
    const refused = await patch(cho, json);
    t.is(refused.status, status, JSON.stringify(json));
    t.is(errorOf(refused).message, message, JSON.stringify(json));
    t.truthy(errorOf(refused).hint, JSON.stringify(json));
  }
  t.is((await patch(999, { active: false })).status, 404);
  t.deepEqual(await practitioners(), before);
});

test('one user signs in as one practitioner at most', async (t) => {
  const { knex, cho, ng, patch, practitioners } = await world(t);
  const userId = await addUser(knex, 'mei', ['clinician']);
  t.is((await patch(cho, { userId })).status, 200);
  const before = await practitioners();
  const taken = await patch(ng, { userId });
  t.is(taken.status, 422);
  t.is(
    errorOf(taken).message,
    `the request body is invalid at /userId: user ${userId} is already linked to another practitioner`,
  );
  t.deepEqual(await practitioners(), before);
});

test('a practitioner without appointments is deleted; one with appointments is 409 and is deactivated instead', async (t) => {
  const { base, as, ada, cho, ng, patch, practitioners } = await world(t);
  await api(base, as('receptionist'), 'POST', APPOINTMENTS, {
    json: {
      patientId: ada,
      practitionerId: cho,
      startAt: '2026-03-02T09:00:00Z',
      endAt: '2026-03-02T09:30:00Z',
    },
  });
  const before = await practitioners();
  const refused = await api(base, as('admin'), 'DELETE', `${PRACTITIONERS}/${cho}`);
  t.is(refused.status, 409);
  t.like(errorOf(refused), {
    code: 'practitioner_has_appointments',
    message: `practitioner ${cho} (Dr. Cho) has 1 appointment, which keep their practitioner`,
    hint: `deactivate the practitioner instead: PATCH /api/v1/appointments/practitioners/${cho} with {"active": false}`,
  });
  t.deepEqual(await practitioners(), before);
  t.is((await api(base, as('clinician'), 'DELETE', `${PRACTITIONERS}/${ng}`)).status, 403);
  t.is((await api(base, as('admin'), 'DELETE', `${PRACTITIONERS}/${ng}`)).status, 204);
  t.is((await api(base, as('admin'), 'DELETE', `${PRACTITIONERS}/${ng}`)).status, 404);
  t.is((await patch(cho, { active: false })).status, 200);
  t.like((await api(base, as('receptionist'), 'GET', PRACTITIONERS)).body, {
    items: [{ id: cho, name: 'Dr. Cho', active: false }],
  });
});

test('an inactive practitioner takes no new bookings; their appointments can still be moved and cancelled', async (t) => {
  const { base, as, knex, ada, cho, ng, patch } = await world(t);
  const booked = await api(base, as('receptionist'), 'POST', APPOINTMENTS, {
    json: {
      patientId: ada,
      practitionerId: cho,
      startAt: '2026-03-02T09:00:00Z',
      endAt: '2026-03-02T09:30:00Z',
    },
  });
  const id = (booked.body as { id: number }).id;
  await patch(cho, { active: false });
  const count = async () => Number((await knex('appointments_appointment').count('* as n'))[0]!.n);
  const refused = await api(base, as('receptionist'), 'POST', APPOINTMENTS, {
    json: {
      patientId: ada,
      practitionerId: cho,
      startAt: '2026-03-03T09:00:00Z',
      endAt: '2026-03-03T09:30:00Z',
    },
  });
  t.is(refused.status, 422);
  t.is(
    errorOf(refused).message,
    `the request body is invalid at /practitionerId: practitioner ${cho} (Dr. Cho) is inactive and takes no new appointments; choose an active one, or an administrator makes them active again`,
  );
  t.is(await count(), 1);
  const moved = await api(base, as('receptionist'), 'PATCH', `${APPOINTMENTS}/${id}`, {
    json: { startAt: '2026-03-02T10:00:00Z', endAt: '2026-03-02T10:30:00Z' },
  });
  t.is(moved.status, 200, moved.text);
  await patch(ng, { active: false });
  const toInactive = await api(base, as('receptionist'), 'PATCH', `${APPOINTMENTS}/${id}`, {
    json: { practitionerId: ng },
  });
  t.is(toInactive.status, 422);
  t.like((await api(base, as('receptionist'), 'GET', `${APPOINTMENTS}/${id}`)).body, { practitionerId: cho });
});

test('GET /staff lists the users a practitioner may be linked to, with their practitioner; for practitioner managers only', async (t) => {
  const { base, knex, as, cho, patch } = await world(t);
  const userId = await addUser(knex, 'mei', ['clinician']);
  await patch(cho, { userId });
  const staff = await api(base, as('admin'), 'GET', STAFF);
  t.is(staff.status, 200, staff.text);
  const items = (staff.body as { items: Array<{ username: string; practitionerId: number | null }> }).items;
  t.deepEqual(
    items.map((item) => item.username),
    [...items.map((item) => item.username)].sort(),
  );
  t.like(
    items.find((item) => item.username === 'mei'),
    { id: userId, practitionerId: cho },
  );
  t.is(items.find((item) => item.username === 'receptionist')?.practitionerId, null);
  t.is((await api(base, as('receptionist'), 'GET', STAFF)).status, 403);
});

test('an alias gives a practitioner another name; a name taken by a practitioner or an alias is 409, nothing written', async (t) => {
  const { base, as, knex, cho, ng } = await world(t);
  const alias = (id: number, name: string, token = as('admin')) =>
    api(base, token, 'POST', `${PRACTITIONERS}/${id}/aliases`, { json: { name } });
  const created = await alias(cho, ' 525A0801-63C7 ');
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { practitionerId: cho, name: '525A0801-63C7' });
  const aliases = () => knex('appointments_practitioner_alias').orderBy('folded_name').select('*');
  const before = await aliases();
  const again = await alias(ng, '525a0801 63c7');
  t.is(again.status, 409);
  t.like(errorOf(again), {
    code: 'practitioner_name_taken',
    message: `"525a0801 63c7" already names practitioner ${cho}, as an alias`,
  });
  const own = await alias(ng, 'DR. CHO');
  t.is(own.status, 409);
  t.is(errorOf(own).message, `"DR. CHO" already names practitioner ${cho} (Dr. Cho)`);
  t.is((await alias(999, 'x1')).status, 404);
  t.is((await alias(ng, '--')).status, 422);
  t.is((await alias(ng, 'x2', as('clinician'))).status, 403);
  t.deepEqual(await aliases(), before);
});
