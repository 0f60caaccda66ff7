/**
 * The pure core of patient search: folding (properties over any text, and the names a clinic
 * meets), the search plan of a query, and the MRN format.
 */
import test from 'ava';
import fc from 'fast-check';
import { fold, nameKey, searchText } from '../../../modules/patients/lib/fold.ts';
import { formatMrn, parseMrnFormat } from '../../../modules/patients/lib/mrn.ts';
import { parseDates, parseSearch } from '../../../modules/patients/lib/search.ts';

const BASES = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '];
/** Combining marks: acute, grave, diaeresis, ring, caron, cedilla, ogonek, dot below. */
const MARKS = ['\u0301', '\u0300', '\u0308', '\u030A', '\u030C', '\u0327', '\u0328', '\u0323'];
const PUNCTUATION = [...`'’-.,_/()"!?:;#&*@%+`];

test('fold is idempotent over any text', (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => fold(fold(text)) === fold(text)));
  t.pass();
});

test('fold gives lower-case letters, digits and single inner spaces only, without marks', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (text) => {
      const folded = fold(text);
      return (
        !/[^\p{L}\p{N} ]/u.test(folded) &&
        !/\p{M}/u.test(folded) &&
        !/^ | $| {2}/u.test(folded) &&
        folded === folded.toLowerCase()
      );
    }),
  );
  t.pass();
});

test('fold ignores Unicode normalisation form and case', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (text) => {
      const folded = fold(text);
      return fold(text.normalize('NFD')) === folded && fold(text.normalize('NFC')) === folded;
    }),
  );
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(...BASES, 'ß', 'Ø', 'æ', 'Ł', 'É', 'ü') }), (text) => {
      return fold(text.toUpperCase()) === fold(text) && fold(text.toLowerCase()) === fold(text);
    }),
  );
  t.pass();
});

test('fold ignores accents and punctuation added to Latin letters', (t) => {
  const decorated = fc
    .array(
      fc.record({
        base: fc.constantFrom(...BASES),
        marks: fc.array(fc.constantFrom(...MARKS), { maxLength: 2 }),
        punctuation: fc.option(fc.constantFrom(...PUNCTUATION), { nil: '' }),
      }),
    )
    .map((letters) => ({
      plain: letters.map(({ base }) => base).join(''),
      decorated: letters.map(({ base, marks, punctuation }) => base + marks.join('') + punctuation).join(''),
    }));
  fc.assert(fc.property(decorated, ({ plain, decorated }) => fold(decorated) === fold(plain)));
  t.pass();
});

test('the names a clinic meets fold as a person without the keys types them', (t) => {
  const cases: Array<[string, string]> = [
    ['Müller', 'muller'],
    ['Jürgen', 'jurgen'],
    ["O'Brien", 'obrien'],
    ['O’Brien', 'obrien'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['Søren', 'soren'],
    ['Ærø', 'aero'],
    ['Œuvre', 'oeuvre'],
    ['Łódź', 'lodz'],
    ['Đorđević', 'dordevic'],
    ['Þórunn', 'thorunn'],
    ['İlkay', 'ilkay'],
    ['Işık', 'isik'],
    ['Smith-Jones', 'smithjones'],
    ['  Mary   Ann ', 'mary ann'],
    ['Ｍüｌｌｅｒ', 'muller'],
    ['Nguyễn', 'nguyen'],
    ['Фёдор', 'федор'],
    ['علی‌زاده', 'علیزاده'],
  ];
  for (const [name, folded] of cases) t.is(fold(name), folded, name);
});

test('the search text holds each folded field after a space; the name key joins names without spaces', (t) => {
  t.is(
    searchText({
      mrn: 'MRN-0042',
      familyName: 'Müller',
      givenName: 'Hans Jürgen',
      phone: '+44 (20) 7946-0000',
    }),
    ' muller hans jurgen mrn0042 442079460000',
  );
  t.is(searchText({ mrn: '42', familyName: '-', givenName: 'Ewa', phone: null }), ' ewa 42');
  t.is(nameKey('Smith-Jones', 'Mary Ann'), nameKey('smith jones', 'MARYANN'));
  t.not(nameKey('Ann', 'Mary'), nameKey('Mary', 'Ann'));
});

test('dates parse in the documented forms only, and only as real days', (t) => {
  t.deepEqual(parseDates('1984-03-07'), ['1984-03-07']);
  t.deepEqual(parseDates('7.3.1984'), ['1984-03-07']);
  t.deepEqual(parseDates('07/03/1984'), ['1984-03-07', '1984-07-03']);
  t.deepEqual(parseDates('7-3-1984'), ['1984-03-07', '1984-07-03']);
  t.deepEqual(parseDates('07/07/1984'), ['1984-07-07']);
  t.deepEqual(parseDates('31/12/1990'), ['1990-12-31']);
  t.deepEqual(parseDates('29.02.2023'), []);
  t.deepEqual(parseDates('29.02.2024'), ['2024-02-29']);
  t.deepEqual(parseDates('0000-01-01'), []);
  t.deepEqual(parseDates('07/03/84'), []);
  t.deepEqual(parseDates('1984/03/07'), []);
  fc.assert(
    fc.property(
      fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
      (date) => {
        const iso = date.toISOString().slice(0, 10);
        const [year, month, day] = iso.split('-');
        return (
          parseDates(iso).join() === iso &&
          parseDates(`${Number(day)}.${Number(month)}.${year}`).join() === iso &&
          parseDates(`${day}/${month}/${year}`).includes(iso)
        );
      },
    ),
  );
});

test('a query becomes terms: dates, folded words, or one phone number', (t) => {
  t.deepEqual(parseSearch('  '), []);
  t.deepEqual(parseSearch("O'Brien  7.3.1984"), [
    { kind: 'text', text: 'obrien' },
    { kind: 'date', dates: ['1984-03-07'] },
  ]);
  t.deepEqual(parseSearch('+44 (20) 7946-0000'), [{ kind: 'text', text: '442079460000' }]);
  t.deepEqual(parseSearch('12 34'), [
    { kind: 'text', text: '12' },
    { kind: 'text', text: '34' },
  ]);
  t.deepEqual(parseSearch("' - %"), []);
  t.deepEqual(parseSearch('MRN-0042'), [{ kind: 'text', text: 'mrn0042' }]);
});

test('the MRN format holds {seq} once, pads the number, and refuses what an MRN cannot hold', (t) => {
  const format = parseMrnFormat('MRN-{seq:6}');
  t.deepEqual(format, { prefix: 'MRN-', width: 6, suffix: '' });
  t.is(formatMrn(format as { prefix: string; width: number; suffix: string }, 42), 'MRN-000042');
  t.is(formatMrn({ prefix: 'W', width: 2, suffix: '/A' }, 1234), 'W1234/A', 'grows past its width');
  t.deepEqual(parseMrnFormat('{seq}'), { prefix: '', width: 1, suffix: '' });
  t.regex((parseMrnFormat('MRN') as { problem: string }).problem, /exactly once/);
  t.regex((parseMrnFormat('{seq}-{seq}') as { problem: string }).problem, /2 times/);
  t.regex((parseMrnFormat('{seq:0}') as { problem: string }).problem, /1 to 18/);
  t.regex((parseMrnFormat('MRN {seq}') as { problem: string }).problem, /only letters/);
});
