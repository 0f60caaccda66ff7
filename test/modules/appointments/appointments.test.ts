/**
 * The appointments module over HTTP: the seeded statuses, create, read, update, the 422s that name
 * the field (end before start, unknown patient, unknown status), and the filtered, paginated list.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PATH = '/api/v1/appointments/appointments';

async function world(t: ExecutionContext) {
  const running = await clinic(t);
  const [ada, bo] = await insertPatients(running.knex, [
    { mrn: 'A1', family_name: 'Ada', given_name: 'A' },
    { mrn: 'B1', family_name: 'Bo', given_name: 'B' },
  ]);
  const [osei] = (await running
    .knex('appointments_practitioner')
    .insert({ name: 'Dr. Osei', folded_name: 'dr osei' })
    .returning('id')) as Array<{ id: number }>;
  return {
    ...running,
    ada: ada as number,
    bo: bo as number,
    osei: osei!.id,
    token: running.as('receptionist'),
  };
}

test('install seeds the five status codes, tracked as seed records', async (t) => {
  const { knex } = await clinic(t);
  t.deepEqual(await knex('appointments_status').orderBy('id').select('code', 'label'), [
    { code: 'booked', label: 'Booked' },
    { code: 'arrived', label: 'Arrived' },
    { code: 'fulfilled', label: 'Fulfilled' },
    { code: 'cancelled', label: 'Cancelled' },
    { code: 'noshow', label: 'Did not attend' },
  ]);
  t.is((await knex('core_external_id').where({ module_name: 'appointments' }).pluck('xml_id')).length, 5);
});

test('book, read and reschedule an appointment: status defaults to booked', async (t) => {
  const { base, token, ada, osei } = await world(t);
  const created = await api(base, token, 'POST', PATH, {
    json: {
      patientId: ada,
      practitionerId: osei,
      startAt: '2026-03-02T09:00:00+01:00',
      endAt: '2026-03-02T09:20:00+01:00',
      reason: 'Follow-up',
    },
  });
  t.is(created.status, 201, created.text);
  const appointment = created.body as { id: number; createdAt: string; updatedAt: string };
  t.like(appointment, {
    patientId: ada,
    practitionerId: osei,
    practitionerName: 'Dr. Osei',
    overbooked: false,
    cancellationReason: null,
    startAt: '2026-03-02T08:00:00.000Z',
    endAt: '2026-03-02T08:20:00.000Z',
    status: 'booked',
    reason: 'Follow-up',
  });
  t.is(created.headers.get('location'), `${PATH}/${appointment.id}`);
  t.deepEqual((await api(base, token, 'GET', `${PATH}/${appointment.id}`)).body, appointment);
  const moved = await api(base, token, 'PATCH', `${PATH}/${appointment.id}`, {
    json: { startAt: '2026-03-03T10:00:00Z', endAt: '2026-03-03T10:30:00Z', status: 'arrived', reason: null },
  });
  t.is(moved.status, 200, moved.text);
  t.like(moved.body, {
    startAt: '2026-03-03T10:00:00.000Z',
    endAt: '2026-03-03T10:30:00.000Z',
    status: 'arrived',
    reason: null,
    practitionerName: 'Dr. Osei',
    createdAt: appointment.createdAt,
  });
});

test('an end before the start, an unknown patient or an unknown status is 422 naming the field', async (t) => {
  const { base, token, ada, knex, osei } = await world(t);
  const valid = {
    patientId: ada,
    practitionerId: osei,
    startAt: '2026-03-02T09:00:00Z',
    endAt: '2026-03-02T09:30:00Z',
  };
  const cases: Array<[object, string]> = [
    [{ ...valid, endAt: '2026-03-02T08:00:00Z' }, '/endAt: must be after startAt'],
    [{ ...valid, endAt: valid.startAt }, '/endAt: must be after startAt'],
    [{ ...valid, patientId: 999 }, '/patientId: there is no patient 999'],
    [
      { ...valid, status: 'scheduled' },
      '/status: there is no status "scheduled"; the statuses are booked, arrived, fulfilled, cancelled, noshow',
    ],
    [{ ...valid, startAt: '2026-03-02 09:00' }, '/startAt: must match format "date-time"'],
    [{ ...valid, startAt: '2026-03-02T09:00:00' }, '/startAt: must match format "date-time"'],
    [{ ...valid, patientId: '1' }, '/patientId: must be an integer'],
    [
      { ...valid, practitionerId: 999 },
      '/practitionerId: there is no practitioner 999; GET /api/v1/appointments/practitioners lists them',
    ],
    [
      { ...valid, practitionerName: 'Dr. Osei' },
      '/practitionerName: unknown field; allowed fields are patientId, practitionerId, startAt, endAt, status, reason, cancellationReason, overbook',
    ],
    [{ patientId: ada, practitionerId: osei, startAt: valid.startAt }, '/: missing required field "endAt"'],
  ];
  for (const [json, where] of cases) {
    const answer = await api(base, token, 'POST', PATH, { json });
    t.is(answer.status, 422, where);
    t.deepEqual(errorOf(answer), {
      code: 'invalid_body',
      message: `the request body is invalid at ${where}`,
      hint: 'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
    });
  }
  t.deepEqual(await knex('appointments_appointment').select('id'), []);
  const { id } = (await api(base, token, 'POST', PATH, { json: valid })).body as { id: number };
  const late = await api(base, token, 'PATCH', `${PATH}/${id}`, {
    json: { startAt: '2026-03-02T10:00:00Z' },
  });
  t.is(late.status, 422);
  t.is(errorOf(late).message, 'the request body is invalid at /startAt: must be before the appointment ends');
  const gone = await api(base, token, 'PATCH', `${PATH}/${id}`, { json: { status: 'lost' } });
  t.is(gone.status, 422);
  t.regex(errorOf(gone).message, /^the request body is invalid at \/status: there is no status "lost"/);
  t.like((await api(base, token, 'GET', `${PATH}/${id}`)).body, {
    startAt: '2026-03-02T09:00:00.000Z',
    status: 'booked',
  });
});

test('unknown and malformed ids are 404', async (t) => {
  const { base, token } = await world(t);
  for (const id of ['1', 'x', '0', '4294967296']) {
    const read = await api(base, token, 'GET', `${PATH}/${id}`);
    t.is(read.status, 404, id);
    t.is(errorOf(read).message, `there is no appointment ${id}`);
    t.is((await api(base, token, 'PATCH', `${PATH}/${id}`, { json: { status: 'arrived' } })).status, 404);
  }
});

interface ListAnswer {
  items: Array<{ id: number; patientId: number; startAt: string; status: string }>;
  nextCursor: string | null;
}

/** 30 appointments, one a day from 2026-04-01, alternating patients, every third cancelled. */
async function calendar(knex: Parameters<typeof insertPatients>[0], ada: number, bo: number) {
  const rows = Array.from({ length: 30 }, (_, i) => ({
    patient_id: i % 2 === 0 ? ada : bo,
    // Sub-millisecond starts: the cursor must not lose them, or a page would repeat or skip a row.
    start_at: `2026-04-${String(i + 1).padStart(2, '0')}T09:00:00.000${String(i + 1).padStart(3, '0')}Z`,
    end_at: `2026-04-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
    status: i % 3 === 0 ? 'cancelled' : 'booked',
  }));
  return (await knex('appointments_appointment').insert(rows.reverse()).returning('id'))
    .map((row: { id: number }) => row.id)
    .reverse();
}

test('the list is in start order; cursor and offset pages agree and cover every appointment once', async (t) => {
  const { base, token, knex, ada, bo } = await world(t);
  const ids = await calendar(knex, ada, bo);
  const seen: number[] = [];
  let query = '?limit=7';
  for (;;) {
    const page = (await api(base, token, 'GET', PATH + query)).body as ListAnswer;
    seen.push(...page.items.map((item) => item.id));
    if (page.nextCursor === null) break;
    query = `?limit=7&cursor=${page.nextCursor}`;
  }
  t.deepEqual(seen, ids);
  const offset = (await api(base, token, 'GET', `${PATH}?limit=7&offset=14`)).body as ListAnswer;
  t.deepEqual(
    offset.items.map((item) => item.id),
    ids.slice(14, 21),
  );
});

test('filters: patient, status (one or several), and a start range [from, to)', async (t) => {
  const { base, token, knex, ada, bo } = await world(t);
  const ids = await calendar(knex, ada, bo);
  const list = async (query: string) =>
    ((await api(base, token, 'GET', `${PATH}?${query}`)).body as ListAnswer).items.map((item) => item.id);
  t.deepEqual(
    await list(`patientId=${bo}&limit=200`),
    ids.filter((_, i) => i % 2 === 1),
  );
  t.deepEqual(
    await list('status=cancelled'),
    ids.filter((_, i) => i % 3 === 0),
  );
  t.deepEqual(await list('status=cancelled,booked'), ids);
  t.deepEqual(
    await list('from=2026-04-10T00:00:00Z&to=2026-04-13T09:00:00.000013Z'),
    ids.slice(9, 12),
    'to excludes an appointment starting exactly then',
  );
  t.deepEqual(
    await list(`from=2026-04-10T00:00:00%2B02:00&to=2026-04-20T00:00:00Z&status=cancelled&patientId=${ada}`),
    [ids[12], ids[18]],
  );
  const cases: Array<[string, string]> = [
    [
      'status=scheduled',
      'the query parameter status names no status "scheduled"; the statuses are booked, arrived, fulfilled, cancelled, noshow',
    ],
    ['patientId=abc', 'the query parameter patientId must be a patient id'],
    [
      'from=2026-04-10',
      'the query parameter from must be a date-time with its offset, such as 2026-03-01T09:00:00Z',
    ],
    [
      'to=2026-02-30T00:00:00Z',
      'the query parameter to must be a date-time with its offset, such as 2026-03-01T09:00:00Z',
    ],
    ['cursor=WzFd', 'the query parameter cursor is not a cursor this list gave out; start again without it'],
    [
      `cursor=${Buffer.from('["2026-02-30T09:00:00Z",1]').toString('base64url')}`,
      'the query parameter cursor is not a cursor this list gave out; start again without it',
    ],
    [
      `cursor=${Buffer.from('["2026-03-01T09:00:00Z",2147483648]').toString('base64url')}`,
      'the query parameter cursor is not a cursor this list gave out; start again without it',
    ],
  ];
  for (const [query, message] of cases) {
    const answer = await api(base, token, 'GET', `${PATH}?${query}`);
    t.is(answer.status, 400, query);
    t.is(errorOf(answer).message, message);
  }
});
