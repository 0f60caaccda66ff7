/**
 * Practitioners as records: the list and the admin's create, the busy check (409 naming the other
 * appointment's time), overbooking with the permission and recorded as such, reschedule, cancel
 * with its reason, no-show, and the migration of free-text names into records.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';
import * as migration from '../../../modules/appointments/migrations/20261127000100_create_appointments_practitioner.ts';
import * as aliases from '../../../modules/appointments/migrations/20261127000200_add_practitioner_specialty_active.ts';
import { foldName, upsertPractitioners } from '../../../modules/appointments/lib/practitioners.ts';
import { addUser } from '../../helpers/app.ts';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PRACTITIONERS = '/api/v1/appointments/practitioners';
const APPOINTMENTS = '/api/v1/appointments/appointments';

interface Appointment {
  id: number;
  practitionerId: number | null;
  practitionerName: string;
  startAt: string;
  endAt: string;
  status: string;
  overbooked: boolean;
  cancellationReason: string | null;
}

async function world(t: ExecutionContext) {
  const running = await clinic(t);
  const [ada] = await insertPatients(running.knex, [{ mrn: 'A1', family_name: 'Ada', given_name: 'A' }]);
  const admin = running.as('admin');
  const cho = (await api(running.base, admin, 'POST', PRACTITIONERS, { json: { name: 'Dr. Cho' } })).body as {
    id: number;
  };
  const book = (token: string, json: object) =>
    api(running.base, token, 'POST', APPOINTMENTS, {
      json: { patientId: ada, practitionerId: cho.id, ...json },
    });
  return { ...running, ada: ada!, cho: cho.id, book };
}

test('foldName: case, accents, apostrophes and punctuation do not tell names apart', (t) => {
  t.is(foldName('Dr. Cho'), 'dr cho');
  t.is(foldName('Dr Cho'), 'dr cho');
  t.is(foldName('  DR.  cho '), 'dr cho');
  t.is(foldName("Dr. O'Brien-Müller"), 'dr obrien muller');
  t.is(foldName('...'), '');
  fc.assert(
    fc.property(fc.string(), (name) => {
      const folded = foldName(name);
      t.is(foldName(folded), folded);
      t.is(foldName(name.toUpperCase()), foldName(name.toLowerCase()));
    }),
  );
});

test('the admin adds practitioners, linked to a user or not; everyone who reads appointments lists them', async (t) => {
  const { base, knex, as, cho } = await world(t);
  const userId = await addUser(knex, 'osei', ['clinician']);
  const created = await api(base, as('admin'), 'POST', PRACTITIONERS, {
    json: { name: '  Dr. Osei ', userId },
  });
  t.is(created.status, 201, created.text);
  const osei = created.body as { id: number };
  t.deepEqual(created.body, { id: osei.id, name: 'Dr. Osei', specialty: null, active: true, userId });
  t.is(created.headers.get('location'), `${PRACTITIONERS}/${osei.id}`);
  const list = await api(base, as('receptionist'), 'GET', PRACTITIONERS);
  t.deepEqual(list.body, {
    items: [
      { id: cho, name: 'Dr. Cho', specialty: null, active: true, userId: null },
      { id: osei.id, name: 'Dr. Osei', specialty: null, active: true, userId },
    ],
    nextCursor: null,
  });
  t.deepEqual((await api(base, as('receptionist'), 'GET', `${PRACTITIONERS}/${osei.id}`)).body, created.body);
  t.is((await api(base, as('receptionist'), 'GET', `${PRACTITIONERS}/999`)).status, 404);
});

test('creating a practitioner needs appointments.practitioner.write; a same-name, an unknown user or an empty name is refused', async (t) => {
  const { base, knex, as, cho } = await world(t);
  for (const role of ['clinician', 'receptionist'] as const) {
    const refused = await api(base, as(role), 'POST', PRACTITIONERS, { json: { name: 'Dr. Ng' } });
    t.is(refused.status, 403, role);
    t.is(errorOf(refused).message, 'permission denied: appointments.practitioner.write');
  }
  const same = await api(base, as('admin'), 'POST', PRACTITIONERS, { json: { name: 'dr cho' } });
  t.is(same.status, 409);
  t.like(errorOf(same), {
    code: 'practitioner_exists',
    message: `practitioner ${cho} is already called "Dr. Cho", the same name as "dr cho" but for case, accents or punctuation`,
  });
  const ghost = await api(base, as('admin'), 'POST', PRACTITIONERS, {
    json: { name: 'Dr. Ng', userId: 999 },
  });
  t.is(ghost.status, 422);
  t.is(errorOf(ghost).message, 'the request body is invalid at /userId: there is no user 999');
  const dots = await api(base, as('admin'), 'POST', PRACTITIONERS, { json: { name: '. .' } });
  t.is(dots.status, 422);
  t.is(errorOf(dots).message, 'the request body is invalid at /name: must contain a letter or a digit');
  t.is(Number((await knex('appointments_practitioner').count('* as n'))[0]!.n), 1);
});

test('GET /practitioners/me is the practitioner the caller signs in as, 404 for anyone else', async (t) => {
  const { base, knex, as } = await world(t);
  const clinicianId = (await knex('base_user').where({ username: 'clinician' }).first('id')) as {
    id: number;
  };
  await api(base, as('admin'), 'POST', PRACTITIONERS, { json: { name: 'Dr. Clin', userId: clinicianId.id } });
  t.like((await api(base, as('clinician'), 'GET', `${PRACTITIONERS}/me`)).body, { name: 'Dr. Clin' });
  const none = await api(base, as('receptionist'), 'GET', `${PRACTITIONERS}/me`);
  t.is(none.status, 404);
  t.is(errorOf(none).message, 'user receptionist is no practitioner');
});

test('an overlapping booking of the same practitioner is 409 practitioner_busy naming the other time; others are fine', async (t) => {
  const { base, as, book, knex, ada } = await world(t);
  const first = await book(as('receptionist'), {
    startAt: '2026-03-02T09:00:00Z',
    endAt: '2026-03-02T09:30:00Z',
  });
  t.is(first.status, 201, first.text);
  const { id } = first.body as Appointment;
  const busy = await book(as('receptionist'), {
    startAt: '2026-03-02T09:15:00Z',
    endAt: '2026-03-02T09:45:00Z',
  });
  t.is(busy.status, 409);
  t.deepEqual(errorOf(busy), {
    code: 'practitioner_busy',
    message: `Dr. Cho is booked from 2026-03-02T09:00:00.000Z to 2026-03-02T09:30:00.000Z (appointment ${id})`,
    hint: 'choose another time or practitioner; someone holding appointments.appointment.overbook may book anyway with "overbook": true',
  });
  t.is(Number((await knex('appointments_appointment').count('* as n'))[0]!.n), 1);
  // Back to back is no overlap; another practitioner at the same time is free.
  const next = await book(as('receptionist'), {
    startAt: '2026-03-02T09:30:00Z',
    endAt: '2026-03-02T10:00:00Z',
  });
  t.is(next.status, 201, next.text);
  const ng = (await api(base, as('admin'), 'POST', PRACTITIONERS, { json: { name: 'Dr. Ng' } })).body as {
    id: number;
  };
  const other = await api(base, as('receptionist'), 'POST', APPOINTMENTS, {
    json: {
      patientId: ada,
      practitionerId: ng.id,
      startAt: '2026-03-02T09:10:00Z',
      endAt: '2026-03-02T09:20:00Z',
    },
  });
  t.is(other.status, 201, other.text);
});

test('overbook: true books anyway for holders of appointments.appointment.overbook, recorded; 403 for others', async (t) => {
  const { as, book, knex } = await world(t);
  await book(as('receptionist'), { startAt: '2026-03-02T09:00:00Z', endAt: '2026-03-02T09:30:00Z' });
  const over = { startAt: '2026-03-02T09:00:00Z', endAt: '2026-03-02T09:20:00Z', overbook: true };
  const refused = await book(as('receptionist'), over);
  t.is(refused.status, 403);
  t.is(errorOf(refused).message, 'permission denied: appointments.appointment.overbook');
  t.is(Number((await knex('appointments_appointment').count('* as n'))[0]!.n), 1);
  const booked = await book(as('clinician'), over);
  t.is(booked.status, 201, booked.text);
  t.true((booked.body as Appointment).overbooked);
  // The flag on a free time books normally: nothing was overbooked.
  const free = await book(as('receptionist'), {
    ...over,
    startAt: '2026-03-03T09:00:00Z',
    endAt: '2026-03-03T09:20:00Z',
  });
  t.is(free.status, 201, free.text);
  t.false((free.body as Appointment).overbooked);
});

test('bookings of one practitioner at once: exactly one of six overlapping requests wins', async (t) => {
  const { as, book } = await world(t);
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      book(as('receptionist'), { startAt: '2026-03-02T09:00:00Z', endAt: `2026-03-02T09:${10 + i}:00Z` }),
    ),
  );
  t.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409, 409, 409, 409]);
});

test('reschedule checks the new time; cancelling needs a reason and frees the time; no-show too', async (t) => {
  const { base, as, book } = await world(t);
  const token = as('receptionist');
  const a = (await book(token, { startAt: '2026-03-02T09:00:00Z', endAt: '2026-03-02T09:30:00Z' }))
    .body as Appointment;
  const b = (await book(token, { startAt: '2026-03-02T10:00:00Z', endAt: '2026-03-02T10:30:00Z' }))
    .body as Appointment;
  const patch = (id: number, json: object) => api(base, token, 'PATCH', `${APPOINTMENTS}/${id}`, { json });
  const clash = await patch(b.id, { startAt: '2026-03-02T09:20:00Z', endAt: '2026-03-02T09:50:00Z' });
  t.is(clash.status, 409);
  t.regex(errorOf(clash).message, /booked from 2026-03-02T09:00:00.000Z to 2026-03-02T09:30:00.000Z/);
  // Moving within its own time is no clash with itself.
  const moved = await patch(a.id, { startAt: '2026-03-02T09:10:00Z', endAt: '2026-03-02T09:40:00Z' });
  t.is(moved.status, 200, moved.text);
  const noReason = await patch(a.id, { status: 'cancelled' });
  t.is(noReason.status, 422);
  t.is(
    errorOf(noReason).message,
    'the request body is invalid at /cancellationReason: is required to cancel an appointment: say why',
  );
  t.is((await patch(a.id, { status: 'cancelled', cancellationReason: '   ' })).status, 422);
  const cancelled = await patch(a.id, { status: 'cancelled', cancellationReason: ' Patient is ill ' });
  t.is(cancelled.status, 200, cancelled.text);
  t.like(cancelled.body, { status: 'cancelled', cancellationReason: 'Patient is ill' });
  // The cancelled time is free again.
  const into = await patch(b.id, { startAt: '2026-03-02T09:20:00Z', endAt: '2026-03-02T09:50:00Z' });
  t.is(into.status, 200, into.text);
  // Re-booking the cancelled one is a booking: its time is taken now, and the reason goes.
  const back = await patch(a.id, { status: 'booked' });
  t.is(back.status, 409);
  const noShow = await patch(b.id, { status: 'noshow' });
  t.is(noShow.status, 200);
  t.like(noShow.body, { status: 'noshow', cancellationReason: null });
  const rebooked = await patch(a.id, { status: 'booked' });
  t.is(rebooked.status, 200, rebooked.text);
  t.like(rebooked.body, { status: 'booked', cancellationReason: null, overbooked: false });
});

test('the migration turns free-text names into practitioners, one per folded name, the most used spelling shown', async (t) => {
  const { knex, ada } = await world(t);
  await knex('appointments_appointment').del();
  await knex('appointments_practitioner').del();
  // The later migration refers to the practitioners: undone first, as a downgrade would.
  await aliases.down(knex);
  await migration.down(knex);
  const at = (day: number) => ({
    start_at: `2026-03-0${day}T09:00:00Z`,
    end_at: `2026-03-0${day}T09:30:00Z`,
  });
  await knex('appointments_appointment').insert([
    { patient_id: ada, practitioner_name: 'Dr. Cho', ...at(1) },
    { patient_id: ada, practitioner_name: 'Dr Cho', ...at(1) },
    { patient_id: ada, practitioner_name: 'Dr. Cho', ...at(2) },
    { patient_id: ada, practitioner_name: 'DR. CHO', ...at(3) },
    { patient_id: ada, practitioner_name: 'Dr. Müller', ...at(4) },
    { patient_id: ada, practitioner_name: '', ...at(5) },
  ]);
  await migration.up(knex);
  t.deepEqual(await knex('appointments_practitioner').orderBy('folded_name').select('name', 'folded_name'), [
    { name: 'Dr. Cho', folded_name: 'dr cho' },
    { name: 'Dr. Müller', folded_name: 'dr muller' },
  ]);
  const rows = (await knex('appointments_appointment as a')
    .leftJoin('appointments_practitioner as p', 'p.id', 'a.practitioner_id')
    .orderBy('a.id')
    .select('a.practitioner_name', 'p.name', 'a.overbooked')) as Array<{ name: string | null }>;
  t.deepEqual(
    rows.map((row) => row.name),
    ['Dr. Cho', 'Dr. Cho', 'Dr. Cho', 'Dr. Cho', 'Dr. Müller', null],
  );
});

test('upsertPractitioners finds existing practitioners by folded name and creates the rest once', async (t) => {
  const { knex, cho } = await world(t);
  const ids = await upsertPractitioners(knex, ['dr cho', 'Dr. Ng', 'Dr Ng', 'Dr. Ng', '', ' ? ']);
  t.deepEqual([...ids.keys()].sort(), ['dr cho', 'dr ng']);
  t.is(ids.get('dr cho'), cho);
  t.deepEqual(await knex('appointments_practitioner').orderBy('id').pluck('name'), ['Dr. Cho', 'Dr. Ng']);
  const again = await upsertPractitioners(knex, ['DR NG']);
  t.is(again.get('dr ng'), ids.get('dr ng'));
  t.is(Number((await knex('appointments_practitioner').count('* as n'))[0]!.n), 2);
});
