/**
 * Registering a patient over HTTP: the warning of a probable duplicate (same folded name and birth
 * date), which changes nothing until the request confirms it, and MRNs Ward assigns from the
 * clinic's format (WARD_MRN_FORMAT, set for this file's backend), never twice, even at once.
 */
import test from 'ava';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

process.env.WARD_MRN_FORMAT = 'MRN-{seq:4}';

const PATH = '/api/v1/patients/patients';

test('a registration of the same folded name and birth date is 409 probable_duplicate naming the patient, and saves nothing', async (t) => {
  const { base, as, knex } = await clinic(t);
  const [id] = await insertPatients(knex, [
    { mrn: 'MRN-0042', family_name: 'Müller', given_name: 'Jürgen', birth_date: '1984-03-07' },
  ]);
  const writer = as('receptionist');
  const again = await api(base, writer, 'POST', PATH, {
    json: { mrn: 'X-1', familyName: 'MULLER', givenName: 'jurgen', birthDate: '1984-03-07' },
  });
  t.is(again.status, 409, again.text);
  const error = errorOf(again) as ReturnType<typeof errorOf> & { duplicates: Array<Record<string, unknown>> };
  t.is(error.code, 'probable_duplicate');
  t.is(
    error.message,
    `a patient of the same name and birth date is already registered: patient ${id} (MRN "MRN-0042")`,
  );
  t.regex(error.hint, /\?confirm=duplicate/);
  t.like(error.duplicates, [
    { id, mrn: 'MRN-0042', familyName: 'Müller', givenName: 'Jürgen', birthDate: '1984-03-07' },
  ]);
  t.is(
    await knex('patients_patient')
      .count('* as n')
      .first()
      .then((row) => Number(row?.n)),
    1,
    'nothing saved',
  );
  t.like(
    await knex('core_audit_event')
      .where({ action: 'record.list', patient_id: String(id) })
      .first(),
    {
      module: 'patients',
      kind: 'patient',
      record_id: String(id),
      outcome: 'ok',
      detail: { ids: [id], shownAs: 'probable_duplicate' },
    },
    'the patients the refusal showed are recorded as shown',
  );

  const confirmed = await api(base, writer, 'POST', `${PATH}?confirm=duplicate`, {
    json: { mrn: 'X-1', familyName: 'MULLER', givenName: 'jurgen', birthDate: '1984-03-07' },
  });
  t.is(confirmed.status, 201, confirmed.text);

  const both = await api(base, writer, 'POST', PATH, {
    json: { mrn: 'X-2', familyName: 'Müller', givenName: 'Jürgen', birthDate: '1984-03-07' },
  });
  t.is(both.status, 409);
  t.is((errorOf(both) as unknown as { duplicates: unknown[] }).duplicates.length, 2, 'both are named');
});

test('another birth date, no birth date or another name is no duplicate; a bad confirm is 400', async (t) => {
  const { base, as, knex } = await clinic(t);
  await insertPatients(knex, [
    { mrn: 'M-1', family_name: 'Smith-Jones', given_name: 'Mary Ann', birth_date: '1990-01-01' },
  ]);
  const writer = as('receptionist');
  const post = (body: object, query = '') => api(base, writer, 'POST', `${PATH}${query}`, { json: body });
  t.is(
    (await post({ familyName: 'Smith Jones', givenName: 'Maryann', birthDate: '1990-01-01' })).status,
    409,
  );
  t.is(
    (await post({ familyName: 'Smith-Jones', givenName: 'Mary Ann', birthDate: '1990-01-02' })).status,
    201,
  );
  t.is((await post({ familyName: 'Smith-Jones', givenName: 'Mary Ann' })).status, 201);
  t.is(
    (await post({ familyName: 'Smith-Jones', givenName: 'Mary Beth', birthDate: '1990-01-01' })).status,
    201,
  );
  const bad = await post(
    { familyName: 'Smith-Jones', givenName: 'Mary Ann', birthDate: '1990-01-01' },
    '?confirm=yes',
  );
  t.is(bad.status, 400);
  t.like(errorOf(bad), { code: 'invalid_query', message: 'the query parameter confirm must be "duplicate"' });
});

test('without an MRN Ward assigns the next of the clinic format, skipping one typed by hand', async (t) => {
  const { base, as } = await clinic(t);
  const writer = as('receptionist');
  const post = async (body: object) => {
    const answer = await api(base, writer, 'POST', PATH, {
      json: { familyName: 'Lee', givenName: 'Min', ...body },
    });
    t.is(answer.status, 201, answer.text);
    return (answer.body as { mrn: string }).mrn;
  };
  t.is(await post({}), 'MRN-0001');
  t.is(await post({ mrn: 'MRN-0002' }), 'MRN-0002', 'typed');
  t.is(await post({}), 'MRN-0003', 'MRN-0002 was taken by hand');
});

test('MRNs assigned at once are all different', async (t) => {
  const { base, as, knex } = await clinic(t);
  const writer = as('receptionist');
  const answers = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      api(base, writer, 'POST', PATH, { json: { familyName: `Family${i}`, givenName: 'Same' } }),
    ),
  );
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(24).fill(201),
  );
  const mrns = answers.map((answer) => (answer.body as { mrn: string }).mrn);
  t.is(new Set(mrns).size, 24);
  for (const mrn of mrns) t.regex(mrn, /^MRN-\d{4}$/);
  t.is(Number((await knex('patients_patient').count('* as n').first())?.n), 24);
});
