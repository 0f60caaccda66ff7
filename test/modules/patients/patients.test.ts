/**
 * The patients module over HTTP: create, read, update, the 409 of a duplicate MRN, 404s, schema
 * errors naming the JSON path, and the list: name order, cursor and offset pages, prefix search.
 */
import test from 'ava';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PATH = '/api/v1/patients/patients';

const FULL = {
  mrn: 'MRN-0001',
  familyName: 'Okafor',
  givenName: 'Adaeze Ngozi',
  birthDate: '1984-02-29',
  sex: 'female',
  phone: '+44 20 7946 0000',
  email: 'adaeze@example.org',
  address: {
    line: ['1 High Street', 'Flat 2'],
    city: 'Leeds',
    state: 'West Yorkshire',
    postalCode: 'LS1 1AA',
    country: 'GB',
  },
};

test('create, read and update a patient: every field round-trips', async (t) => {
  const { base, as } = await clinic(t);
  const admin = as('admin');
  const created = await api(base, admin, 'POST', PATH, { json: FULL });
  t.is(created.status, 201, created.text);
  const patient = created.body as Record<string, unknown> & {
    id: number;
    createdAt: string;
    updatedAt: string;
  };
  t.like(patient, FULL);
  t.is(created.headers.get('location'), `${PATH}/${patient.id}`);
  t.deepEqual((await api(base, admin, 'GET', `${PATH}/${patient.id}`)).body, patient);

  const changed = await api(base, admin, 'PATCH', `${PATH}/${patient.id}`, {
    json: { sex: 'other', phone: null, address: null, birthDate: null },
  });
  t.is(changed.status, 200, changed.text);
  const updated = changed.body as typeof patient;
  t.like(updated, {
    ...FULL,
    sex: 'other',
    phone: null,
    address: null,
    birthDate: null,
    createdAt: patient.createdAt,
  });
  t.true(Date.parse(updated.updatedAt) >= Date.parse(patient.updatedAt));
  t.deepEqual((await api(base, admin, 'GET', `${PATH}/${patient.id}`)).body, updated);
});

test('a new patient needs only an MRN and names; sex defaults to unknown', async (t) => {
  const { base, as } = await clinic(t);
  const created = await api(base, as('receptionist'), 'POST', PATH, {
    json: { mrn: 'M2', familyName: 'Lee', givenName: 'Min' },
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { birthDate: null, sex: 'unknown', phone: null, email: null, address: null });
});

test('a duplicate MRN is 409 in the error shape, on create and on update', async (t) => {
  const { base, as } = await clinic(t);
  const admin = as('admin');
  await api(base, admin, 'POST', PATH, { json: FULL });
  const other = await api(base, admin, 'POST', `${PATH}?confirm=duplicate`, {
    json: { ...FULL, mrn: 'MRN-0002' },
  });
  const expected = {
    error: {
      code: 'conflict',
      message: 'a patient with MRN "MRN-0001" already exists',
      hint: 'give this patient another MRN, or find the existing one with GET /api/v1/patients/patients?q=<mrn>',
    },
  };
  // Confirmed: the same name and birth date would otherwise be answered as a probable duplicate.
  const duplicate = await api(base, admin, 'POST', `${PATH}?confirm=duplicate`, { json: FULL });
  t.is(duplicate.status, 409);
  t.deepEqual(duplicate.body, expected);
  const renamed = await api(base, admin, 'PATCH', `${PATH}/${(other.body as { id: number }).id}`, {
    json: { mrn: 'MRN-0001' },
  });
  t.is(renamed.status, 409);
  t.deepEqual(renamed.body, expected);
});

test('unknown and malformed ids are 404', async (t) => {
  const { base, as } = await clinic(t);
  const admin = as('admin');
  for (const id of ['999', 'abc', '0', '-1', '1.5', '99999999999', '2147483648']) {
    const read = await api(base, admin, 'GET', `${PATH}/${id}`);
    t.is(read.status, 404, id);
    t.deepEqual(errorOf(read), {
      code: 'not_found',
      message: `there is no patient ${id}`,
      hint: 'check the id; list them with GET on the collection',
    });
    t.is((await api(base, admin, 'PATCH', `${PATH}/${id}`, { json: { sex: 'male' } })).status, 404, id);
  }
});

test('bodies that fail the schema are 422 naming the JSON path, and change nothing', async (t) => {
  const { base, as, knex } = await clinic(t);
  const admin = as('admin');
  const cases: Array<[unknown, string]> = [
    [{ mrn: 'A', givenName: 'B' }, '/: missing required field "familyName"'],
    [{ ...FULL, sex: 'f' }, '/sex: must be equal to one of the allowed values'],
    [{ ...FULL, birthDate: '2023-02-29' }, '/birthDate: must match format "date"'],
    [{ ...FULL, email: 'not an address' }, '/email: must match format "email"'],
    [{ ...FULL, familyName: '   ' }, '/familyName: "   " does not match \\S'],
    [{ ...FULL, mrn: ' M1' }, '/mrn: " M1" does not match ^\\S(.*\\S)?$'],
    [
      { ...FULL, address: { ...FULL.address, zip: '1' } },
      '/address/zip: unknown field; allowed fields are line, city, state, postalCode, country',
    ],
    [
      { ...FULL, nickname: 'Ada' },
      '/nickname: unknown field; allowed fields are mrn, familyName, givenName, birthDate, sex, phone, email, address',
    ],
  ];
  for (const [json, where] of cases) {
    const answer = await api(base, admin, 'POST', PATH, { json });
    t.is(answer.status, 422, where);
    t.is(errorOf(answer).code, 'invalid_body');
    t.is(errorOf(answer).message, `the request body is invalid at ${where}`);
  }
  const [id] = await insertPatients(knex, [{ mrn: 'M1', family_name: 'A', given_name: 'B' }]);
  const empty = await api(base, admin, 'PATCH', `${PATH}/${id}`, { json: {} });
  t.is(empty.status, 422);
  t.is(errorOf(empty).message, 'the request body is invalid at /: must NOT have fewer than 1 properties');
  t.is(
    await knex('patients_patient')
      .count({ n: '*' })
      .first()
      .then((row) => Number(row?.n)),
    1,
  );
});

/** Rows whose name order is known: family names F000…F124, so their order is their number. */
async function numbered(knex: Parameters<typeof insertPatients>[0], count: number): Promise<number[]> {
  const rows = Array.from({ length: count }, (_, i) => ({
    mrn: `N${String(i).padStart(3, '0')}`,
    family_name: `F${String(i).padStart(3, '0')}`,
    given_name: 'Same',
  }));
  // Inserted in reverse, so that id order is not name order.
  return (await insertPatients(knex, rows.reverse())).reverse();
}

interface ListAnswer {
  items: Array<{ id: number; familyName: string }>;
  nextCursor: string | null;
}

test('the list is in name order, 50 by default, and cursor pages show every patient once', async (t) => {
  const { base, as, knex } = await clinic(t);
  const ids = await numbered(knex, 125);
  const reader = as('clinician');
  const first = (await api(base, reader, 'GET', PATH)).body as ListAnswer;
  t.is(first.items.length, 50);
  const seen: number[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const query: string = cursor === '' ? '?limit=40' : `?limit=40&cursor=${cursor}`;
    const page = (await api(base, reader, 'GET', PATH + query)).body as ListAnswer;
    seen.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
  }
  t.deepEqual(seen, ids);
  t.deepEqual(
    first.items.map((item) => item.id),
    ids.slice(0, 50),
  );
});

test('offset pages match cursor pages; the last page has no next cursor', async (t) => {
  const { base, as, knex } = await clinic(t);
  const ids = await numbered(knex, 30);
  const reader = as('admin');
  const page = (await api(base, reader, 'GET', `${PATH}?limit=10&offset=20`)).body as ListAnswer;
  t.deepEqual(
    page.items.map((item) => item.id),
    ids.slice(20),
  );
  t.is(page.nextCursor, null);
  const middle = (await api(base, reader, 'GET', `${PATH}?limit=10&offset=10`)).body as ListAnswer;
  const next = (await api(base, reader, 'GET', `${PATH}?limit=10&cursor=${middle.nextCursor}`))
    .body as ListAnswer;
  t.deepEqual(
    next.items.map((item) => item.id),
    ids.slice(20),
  );
});

test('limit, offset and cursor out of range are 400 naming the parameter', async (t) => {
  const { base, as } = await clinic(t);
  const reader = as('admin');
  const cases: Array<[string, string]> = [
    ['limit=0', 'the query parameter limit must be an integer from 1 to 200, not "0"'],
    ['limit=201', 'the query parameter limit must be an integer from 1 to 200, not "201"'],
    ['limit=ten', 'the query parameter limit must be an integer from 1 to 200, not "ten"'],
    ['offset=-1', 'the query parameter offset must be an integer from 0 to 2147483647, not "-1"'],
    [
      'cursor=nonsense',
      'the query parameter cursor is not a cursor this list gave out; start again without it',
    ],
    [
      `cursor=${Buffer.from('[1,2,3]').toString('base64url')}`,
      'the query parameter cursor is not a cursor this list gave out; start again without it',
    ],
    ['cursor=abc&offset=5', 'the query parameter cursor cannot be combined with offset; send one of them'],
    ['limit=5&limit=6', 'the query parameter limit is given more than once'],
  ];
  for (const [query, message] of cases) {
    const answer = await api(base, reader, 'GET', `${PATH}?${query}`);
    t.is(answer.status, 400, query);
    t.deepEqual(errorOf(answer), {
      code: 'invalid_query',
      message,
      hint: 'fix that parameter and send the request again (GET /api/v1/openapi.json lists the routes)',
    });
  }
  t.is((await api(base, reader, 'GET', `${PATH}?limit=200`)).status, 200);
});

test('a search pages by cursor like the whole list', async (t) => {
  const { base, as, knex } = await clinic(t);
  await numbered(knex, 12);
  await insertPatients(knex, [{ mrn: 'X1', family_name: 'Other', given_name: 'Person' }]);
  const first = (await api(base, as('admin'), 'GET', `${PATH}?q=f0&limit=5`)).body as ListAnswer;
  const second = (await api(base, as('admin'), 'GET', `${PATH}?q=f0&limit=5&cursor=${first.nextCursor}`))
    .body as ListAnswer;
  const third = (await api(base, as('admin'), 'GET', `${PATH}?q=f0&limit=5&cursor=${second.nextCursor}`))
    .body as ListAnswer;
  t.deepEqual(
    [...first.items, ...second.items, ...third.items].map((item) => item.familyName),
    Array.from({ length: 12 }, (_, i) => `F${String(i).padStart(3, '0')}`),
  );
  t.is(third.nextCursor, null);
});

test('values the database cannot store are 400 invalid_value, not 500: a NUL character, year 0', async (t) => {
  const { base, as } = await clinic(t);
  const admin = as('admin');
  // A NUL in a name is a control character, which the module's own check names first (422).
  const nul = await api(base, admin, 'POST', PATH, { json: { ...FULL, familyName: 'Sm\u0000ith' } });
  t.is(nul.status, 422);
  t.is(
    errorOf(nul).message,
    'the request body is invalid at /familyName: contains U+0000 NULL (a control character) at character 3; remove it',
  );
  const refusals = [
    await api(base, admin, 'POST', PATH, { json: { ...FULL, mrn: 'MRN-0', birthDate: '0000-01-01' } }),
  ];
  for (const answer of refusals) {
    t.is(answer.status, 400, answer.text);
    t.is(errorOf(answer).code, 'invalid_value');
  }
  // A search folds a NUL away like punctuation: there is nothing left to refuse.
  t.is((await api(base, admin, 'GET', `${PATH}?q=%00`)).status, 200);
});
