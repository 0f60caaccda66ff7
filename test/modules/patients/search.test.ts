/**
 * Searching patients over HTTP: by name, MRN, birth date and phone, ignoring case, accents and
 * punctuation, every term of the query matching; a change of name is found at once.
 */
import test from 'ava';
import { api, clinic, insertPatients } from '../helpers.ts';

const PATH = '/api/v1/patients/patients';

interface ListAnswer {
  items: Array<{ id: number; familyName: string; givenName: string }>;
  nextCursor: string | null;
}

async function searcher(t: Parameters<typeof clinic>[0]) {
  const { base, as, knex } = await clinic(t);
  await insertPatients(knex, [
    {
      mrn: 'MRN-0042',
      family_name: 'Müller',
      given_name: 'Jürgen',
      birth_date: '1984-03-07',
      phone: '+44 20 7946 0000',
    },
    { mrn: 'MRN-0043', family_name: "O'Brien", given_name: 'Siobhán', birth_date: '1984-07-03' },
    {
      mrn: 'A-100',
      family_name: 'Straße',
      given_name: 'Søren Æsir',
      birth_date: '1990-12-31',
      phone: '(555) 010-0100',
    },
    { mrn: 'A-101', family_name: 'Smith-Jones', given_name: 'Mary Ann', birth_date: null },
    { mrn: 'B-200', family_name: 'Łukasz', given_name: 'Ewa' },
  ]);
  const reader = as('receptionist');
  const names = async (q: string) => {
    const answer = await api(base, reader, 'GET', `${PATH}?q=${encodeURIComponent(q)}`);
    t.is(answer.status, 200, answer.text);
    return (answer.body as ListAnswer).items.map((item) => item.familyName);
  };
  return { base, reader, names };
}

test('names are found ignoring case, accents and punctuation', async (t) => {
  const { names } = await searcher(t);
  t.deepEqual(await names('muller'), ['Müller']);
  t.deepEqual(await names('MÜLLER'), ['Müller']);
  t.deepEqual(await names('mu\u0308ller'), ['Müller'], 'a decomposed ü is the same letter');
  t.deepEqual(await names('jurgen'), ['Müller']);
  t.deepEqual(await names('obrien'), ["O'Brien"]);
  t.deepEqual(await names("o'brien"), ["O'Brien"]);
  t.deepEqual(await names('o’brien'), ["O'Brien"], 'a typographic apostrophe too');
  t.deepEqual(await names('siobhan'), ["O'Brien"]);
  t.deepEqual(await names('strasse'), ['Straße']);
  t.deepEqual(await names('soren aesir'), ['Straße']);
  t.deepEqual(await names('lukasz'), ['Łukasz']);
  t.deepEqual(await names('jones'), ['Smith-Jones'], 'a part of a hyphenated name');
  t.deepEqual(await names('smithjones'), ['Smith-Jones']);
  t.deepEqual(await names('smith jones'), ['Smith-Jones']);
  t.deepEqual(await names('mary ann'), ['Smith-Jones']);
  t.deepEqual(await names('mull jur'), ['Müller'], 'every word must match');
  t.deepEqual(await names('muller ewa'), [], 'every word must match');
});

test('a word of two letters matches the start of a word; one letter alone, the start of the family name', async (t) => {
  const { names } = await searcher(t);
  t.deepEqual(await names('m'), ['Müller']);
  t.deepEqual(
    await names('m a'),
    ['Smith-Jones'],
    'Mary and A-101: one letter beside another is a word start',
  );
  t.deepEqual(await names('mr'), ['Müller', "O'Brien"], 'MRN-…');
  t.deepEqual(await names('ew'), ['Łukasz']);
  t.deepEqual(await names('wa'), [], 'inside a word');
  t.deepEqual(await names('o'), ["O'Brien"]);
});

test('MRNs are found ignoring case and punctuation, in part too', async (t) => {
  const { names } = await searcher(t);
  t.deepEqual(await names('MRN-0042'), ['Müller']);
  t.deepEqual(await names('mrn0042'), ['Müller']);
  t.deepEqual(await names('0042'), ['Müller']);
  t.deepEqual(await names('a-10'), ['Smith-Jones', 'Straße']);
});

test('birth dates are found in ISO form, day first with dots, and with slashes or dashes either way round', async (t) => {
  const { names } = await searcher(t);
  t.deepEqual(await names('1984-03-07'), ['Müller']);
  t.deepEqual(await names('7.3.1984'), ['Müller']);
  t.deepEqual(await names('07.03.1984'), ['Müller']);
  t.deepEqual(await names('07/03/1984'), ['Müller', "O'Brien"], 'the 7th of March or July the 3rd');
  t.deepEqual(await names('03-07-1984'), ['Müller', "O'Brien"]);
  t.deepEqual(await names('31/12/1990'), ['Straße'], 'only one reading is a day');
  t.deepEqual(await names('12/31/1990'), ['Straße']);
  t.deepEqual(await names('muller 07/03/1984'), ['Müller'], 'with a name');
  t.deepEqual(await names('1984-02-30'), [], 'no such day');
});

test('phone numbers are found by their digits, whatever their spaces and punctuation', async (t) => {
  const { names } = await searcher(t);
  t.deepEqual(await names('+44 20 7946 0000'), ['Müller']);
  t.deepEqual(await names('7946 0000'), ['Müller']);
  t.deepEqual(await names('(20) 7946-0000'), ['Müller']);
  t.deepEqual(await names('555-010-0100'), ['Straße']);
  t.deepEqual(await names('5550100100'), ['Straße']);
});

test('a blank query, or one of punctuation only, lists everyone; a query over 200 characters is 400', async (t) => {
  const { base, reader, names } = await searcher(t);
  const everyone = ['Łukasz', 'Müller', "O'Brien", 'Smith-Jones', 'Straße'];
  t.deepEqual((await names('  ')).sort(), everyone.sort());
  t.deepEqual((await names("'-")).sort(), everyone.sort());
  t.deepEqual(await names('%'), (await names('')).slice(), '% is no wildcard');
  t.deepEqual(await names('mül_ler'), ['Müller'], '_ is punctuation, not a wildcard');
  t.is((await api(base, reader, 'GET', `${PATH}?q=${'x'.repeat(201)}`)).status, 400);
});

test('a patient written through the API is found by its new name, MRN and phone, and no longer by the old', async (t) => {
  const { base, reader, names } = await searcher(t);
  const created = await api(base, reader, 'POST', PATH, {
    json: { mrn: 'Z-1', familyName: 'Ñúñez', givenName: 'Zoë', phone: '+1 202 555 0199' },
  });
  t.is(created.status, 201, created.text);
  t.deepEqual(await names('nunez zoe'), ['Ñúñez']);
  const id = (created.body as { id: number }).id;
  const changed = await api(base, reader, 'PATCH', `${PATH}/${id}`, { json: { familyName: 'Øster' } });
  t.is(changed.status, 200, changed.text);
  t.deepEqual(await names('nunez'), []);
  t.deepEqual(await names('oster zoe'), ['Øster']);
  t.deepEqual(await names('z-1'), ['Øster'], 'the MRN kept');
  t.deepEqual(await names('202 555 0199'), ['Øster'], 'the phone kept');
  await api(base, reader, 'PATCH', `${PATH}/${id}`, { json: { phone: null, mrn: 'Z-2' } });
  t.deepEqual(await names('202 555 0199'), []);
  t.deepEqual(await names('z2 oster'), ['Øster']);
});

test('one word pages by cursor and by offset through every match, in the folded name order', async (t) => {
  const { base, as, knex } = await clinic(t);
  await insertPatients(knex, [
    { mrn: 'P-1', family_name: 'Jones', given_name: 'Mary' },
    { mrn: 'P-2', family_name: 'Adams', given_name: 'John' },
    { mrn: 'P-3', family_name: 'Zimmer', given_name: 'Joanna' },
    { mrn: 'P-4', family_name: 'van Jost', given_name: 'Anna' },
    { mrn: 'JO-5', family_name: 'Brown', given_name: 'Ed' },
    { mrn: 'P-6', family_name: 'Jönsson', given_name: 'Jo' },
    { mrn: 'P-7', family_name: 'Müller', given_name: 'Jo' },
    { mrn: 'P-8', family_name: 'Mayer', given_name: 'Bob' },
    { mrn: 'P-9', family_name: 'Adams', given_name: 'Johanna' },
    { mrn: 'P-10', family_name: 'Majo', given_name: 'Eve' },
    { mrn: 'P-11', family_name: 'Q7', given_name: 'A5' },
  ]);
  const reader = as('clinician');
  const pages = async (q: string, by: 'cursor' | 'offset') => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let offset = 0; ; offset += 3) {
      const query = by === 'offset' ? `&offset=${offset}` : cursor === null ? '' : `&cursor=${cursor}`;
      const answer = await api(base, reader, 'GET', `${PATH}?q=${q}&limit=3${query}`);
      t.is(answer.status, 200, answer.text);
      const page = answer.body as ListAnswer;
      seen.push(...page.items.map((item) => `${item.familyName} ${item.givenName}`));
      if (by === 'cursor' ? page.nextCursor === null : page.items.length < 3) return seen;
      cursor = page.nextCursor;
    }
  };
  // Family and given names that begin with it, a later word, an MRN; Majo only inside a word.
  const jo = [
    'Adams Johanna',
    'Adams John',
    'Brown Ed',
    'Jones Mary',
    'Jönsson Jo',
    'Müller Jo',
    'van Jost Anna',
    'Zimmer Joanna',
  ];
  t.deepEqual(await pages('jo', 'cursor'), jo);
  t.deepEqual(await pages('jo', 'offset'), jo);
  const ann = ['Adams Johanna', 'van Jost Anna', 'Zimmer Joanna'];
  t.deepEqual(await pages('ann', 'cursor'), ann, 'three letters match inside a word too');
  t.deepEqual(await pages('ann', 'offset'), ann);
  t.deepEqual(await pages('mu', 'cursor'), ['Müller Jo']);
  t.deepEqual(await pages('05', 'cursor'), [], 'no word begins 05');
});
