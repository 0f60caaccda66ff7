/**
 * Patients and Unicode over HTTP: one MRN whichever normalisation form it is typed in, searches
 * that find either form, invisible characters refused with the field, code point and position,
 * Persian names with their zero-width non-joiner kept, and bytes that are not UTF-8 refused.
 */
import test from 'ava';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PATH = '/api/v1/patients/patients';
const ZWNJ = '\u200C';
/** "Zoë Åberg", decomposed (NFD) and precomposed (NFC). */
const NFD = { family: 'A\u030Aberg', given: 'Zoe\u0308' };
const NFC = { family: '\u00C5berg', given: 'Zo\u00EB' };
const MRN_NFD = 'E\u0301-42';
const MRN_NFC = '\u00C9-42';

const rows = async (knex: Parameters<typeof insertPatients>[0]) =>
  (await knex('patients_patient').orderBy('id').select('mrn', 'family_name', 'given_name')) as Array<
    Record<string, string>
  >;

interface ListAnswer {
  items: Array<{ id: number; mrn: string; familyName: string }>;
}

test('an MRN typed decomposed, then precomposed, is one patient: the second is a 409 duplicate', async (t) => {
  const { base, as, knex } = await clinic(t);
  const admin = as('admin');
  const first = await api(base, admin, 'POST', PATH, {
    json: { mrn: MRN_NFD, familyName: NFD.family, givenName: NFD.given },
  });
  t.is(first.status, 201, first.text);
  t.like(first.body, { mrn: MRN_NFC, familyName: NFC.family, givenName: NFC.given });
  const second = await api(base, admin, 'POST', PATH, {
    json: { mrn: MRN_NFC, familyName: 'Other', givenName: 'Person' },
  });
  t.is(second.status, 409);
  t.is(errorOf(second).message, `a patient with MRN "${MRN_NFC}" already exists`);
  t.deepEqual(await rows(knex), [{ mrn: MRN_NFC, family_name: NFC.family, given_name: NFC.given }]);
});

test('a search typed in either form finds the patient', async (t) => {
  const { base, as } = await clinic(t);
  const admin = as('admin');
  await api(base, admin, 'POST', PATH, {
    json: { mrn: MRN_NFC, familyName: NFC.family, givenName: NFC.given },
  });
  const search = async (q: string) =>
    ((await api(base, admin, 'GET', `${PATH}?q=${encodeURIComponent(q)}`)).body as ListAnswer).items.map(
      (item) => item.mrn,
    );
  for (const q of [
    NFD.family,
    NFC.family,
    NFD.given.slice(0, 4),
    'e\u0301-4',
    MRN_NFC,
    'åBERG'.normalize('NFD'),
  ])
    t.deepEqual(await search(q), [MRN_NFC], q);
});

test('a zero-width space or a bidi control in an MRN is 422 naming the field, the code point and where, and stores nothing', async (t) => {
  const { base, as, knex } = await clinic(t);
  const admin = as('admin');
  const cases: Array<[string, string]> = [
    ['MRN\u200B-1', 'contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 4'],
    ['\u202EMRN-1', 'contains U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 1'],
    ['MRN-1\u2066', 'contains U+2066 LEFT-TO-RIGHT ISOLATE (a bidirectional control) at character 6'],
    ['MRN\uFEFF1', 'contains U+FEFF ZERO WIDTH NO-BREAK SPACE (a zero-width character) at character 4'],
    [`M${ZWNJ}R`, 'contains U+200C ZERO WIDTH NON-JOINER (a zero-width character) at character 2'],
    ['MRN\u00A01', 'contains U+00A0 NO-BREAK SPACE (a space other than U+0020 SPACE) at character 4'],
  ];
  for (const [mrn, found] of cases) {
    const answer = await api(base, admin, 'POST', PATH, {
      json: { mrn, familyName: 'Lee', givenName: 'Min' },
    });
    t.is(answer.status, 422, mrn);
    t.deepEqual(errorOf(answer), {
      code: 'invalid_body',
      message: `the request body is invalid at /mrn: ${found}; an MRN holds only visible characters`,
      hint: 'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
    });
  }
  t.deepEqual(await rows(knex), []);
  const [id] = await insertPatients(knex, [{ mrn: 'M1', family_name: 'Lee', given_name: 'Min' }]);
  const renamed = await api(base, admin, 'PATCH', `${PATH}/${id}`, { json: { mrn: 'M\u200B1' } });
  t.is(renamed.status, 422);
  t.deepEqual(await rows(knex), [{ mrn: 'M1', family_name: 'Lee', given_name: 'Min' }]);
});

test('a Persian name keeps its zero-width non-joiner between letters', async (t) => {
  const { base, as } = await clinic(t);
  const admin = as('admin');
  // Alizadeh and Mohammadreza: ZWNJ keeps the parts of each name from joining.
  const family = `\u0639\u0644\u06CC${ZWNJ}\u0632\u0627\u062F\u0647`;
  const given = `\u0645\u062D\u0645\u062F${ZWNJ}\u0631\u0636\u0627`;
  const created = await api(base, admin, 'POST', PATH, {
    json: { mrn: 'IR-1', familyName: family, givenName: given },
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { familyName: family, givenName: given });
  const found = await api(base, admin, 'GET', `${PATH}?q=${encodeURIComponent(family)}`);
  t.deepEqual(
    (found.body as ListAnswer).items.map((item) => item.familyName),
    [family],
  );
});

test('a bidi override in a name, or a zero-width joiner at its edge, is 422 naming the field', async (t) => {
  const { base, as, knex } = await clinic(t);
  const admin = as('admin');
  const override = await api(base, admin, 'POST', PATH, {
    json: { mrn: 'M1', familyName: 'Lee', givenName: 'Ann\u202Etxen' },
  });
  t.is(override.status, 422);
  t.is(
    errorOf(override).message,
    'the request body is invalid at /givenName: contains U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 4; remove it',
  );
  const edge = await api(base, admin, 'POST', PATH, {
    json: { mrn: 'M1', familyName: `Lee${ZWNJ}`, givenName: 'Ann' },
  });
  t.is(edge.status, 422);
  t.is(
    errorOf(edge).message,
    'the request body is invalid at /familyName: contains U+200C ZERO WIDTH NON-JOINER (a zero-width character, allowed only between two letters) at character 4; remove it',
  );
  const city = await api(base, admin, 'POST', PATH, {
    json: { mrn: 'M1', familyName: 'Lee', givenName: 'Ann', address: { line: ['1 High St', 'Flat\u200B2'] } },
  });
  t.is(city.status, 422);
  t.regex(
    errorOf(city).message,
    /^the request body is invalid at \/address\/line\/1: contains U\+200B ZERO WIDTH SPACE/,
  );
  t.deepEqual(await rows(knex), []);
});

test('a body that is not UTF-8 is 400 and creates no patient', async (t) => {
  const { base, as, knex } = await clinic(t);
  const body = Buffer.concat([
    Buffer.from('{"mrn": "M1", "familyName": "M'),
    Buffer.from([0xfc]),
    Buffer.from('ller", "givenName": "Jo"}'),
  ]);
  const answer = await api(base, as('admin'), 'POST', PATH, {
    body,
    headers: { 'content-type': 'application/json' },
  });
  t.is(answer.status, 400);
  t.is(errorOf(answer).code, 'invalid_utf8');
  t.is(
    errorOf(answer).message,
    'the request body is not valid UTF-8: byte 0xFC at byte offset 30 does not begin a valid UTF-8 character',
  );
  t.deepEqual(await rows(knex), []);
});

test('a search whose percent-encoded bytes are not UTF-8 is 400, not a search for U+FFFD', async (t) => {
  const { base, as, knex } = await clinic(t);
  await insertPatients(knex, [{ mrn: 'M1', family_name: '\uFFFDdd', given_name: 'Jo' }]);
  const admin = as('admin');
  for (const q of ['M%FCller', 'caf%C3', '%ED%A0%80']) {
    const answer = await api(base, admin, 'GET', `${PATH}?q=${q}`);
    t.is(answer.status, 400, q);
    t.deepEqual(errorOf(answer), {
      code: 'invalid_query',
      message: 'the query parameter q is not UTF-8 once percent-decoded; percent-encode its UTF-8 bytes',
      hint: 'fix that parameter and send the request again (GET /api/v1/openapi.json lists the routes)',
    });
  }
  const replacement = await api(base, admin, 'GET', `${PATH}?q=%EF%BF%BD`);
  t.is(replacement.status, 200, 'U+FFFD sent as UTF-8 is a character like any other');
  t.is((replacement.body as ListAnswer).items.length, 1);
  t.is(
    (await api(base, admin, 'GET', `${PATH}?q=100%25+%`)).status,
    200,
    'a lone % is kept, as Koa keeps it',
  );
});
