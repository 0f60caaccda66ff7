/**
 * Folding: the form in which patients are searched and compared, so that `muller` finds Müller,
 * `obrien` O'Brien and `strasse` Straße. Pure functions; the module's write path stores their
 * results (`search_text`, `name_key`) and the search folds what is typed the same way. PostgreSQL
 * offers no unaccent here (the embedded server lacks its rules file), so the fold is Ward's own,
 * and the same in every locale, as the database's LC_CTYPE may be C.
 */

/**
 * Letters that are not a base letter plus combining marks, so NFKD leaves them whole: written as
 * the Latin letters a person without the key types instead.
 */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŧ: 't',
  ŋ: 'ng',
  ĸ: 'k',
  ſ: 's',
};

const SPECIAL = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'gu');
const MARKS = /\p{M}/gu;
/** Whatever is neither a letter, a digit nor a space: apostrophes, hyphens, dots, symbols. */
const PUNCTUATION = /[^\p{L}\p{N}\s]/gu;
const SPACES = /\s+/gu;

/**
 * Lower case, without accents or other combining marks, the letters of LETTERS spelled out, and
 * without punctuation; runs of white space become one space, none at either end. Lower-casing
 * comes first: `İ` lowers to `i` and a combining dot, which the marks then lose; and again after
 * NFKD, whose compatibility forms of letters with no lower case (`𝑨`) are capitals.
 */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .toLowerCase()
    .replace(MARKS, '')
    .replace(SPECIAL, (letter) => LETTERS[letter] as string)
    .replace(PUNCTUATION, '')
    .replace(SPACES, ' ')
    .trim();
}

/** The digits of a phone number: `+44 (20) 7946-0000` is `442079460000`. */
export const phoneDigits = (phone: string): string => phone.replace(/\D/gu, '');

/** A patient's fields that folding reads. */
export interface FoldedFields {
  mrn: string;
  familyName: string;
  givenName: string;
  phone: string | null;
}

/**
 * What a search matches against: the folded family name, given name and MRN, and the phone's
 * digits, each after a space (no search word holds a space, so none matches across two fields,
 * and `like '% jo%'` finds every word that begins with `jo`, the first one included).
 */
export function searchText(patient: FoldedFields): string {
  return [
    fold(patient.familyName),
    fold(patient.givenName),
    fold(patient.mrn),
    phoneDigits(patient.phone ?? ''),
  ]
    .filter((part) => part !== '')
    .map((part) => ` ${part}`)
    .join('');
}

/**
 * The name two registrations of one person share: folded family and given names without their
 * spaces, so `Mary-Ann`, `Mary Ann` and `Maryann` are one name.
 */
export const nameKey = (familyName: string, givenName: string): string =>
  `${fold(familyName).replaceAll(' ', '')}|${fold(givenName).replaceAll(' ', '')}`;

/** Text without its first character (a whole code point). */
const rest = (text: string): string => [...text].slice(1).join('');

/**
 * What stands for a name's first letter in `searchRest`: a word character, so that the trigram
 * index sees no word start there (`|jork` would begin a word `jork`, read for every `jo`), and a
 * digit, which begins few words typed (a letter would begin a word for each of its two-letter
 * searches). It can match a search word, so the search checks the search text as well.
 */
const FIRST = '0';

/**
 * The search text with the first letter of the family and given names taken away: whatever a
 * search word matches there it does not match at the start of either name. A search finds the
 * names' starts in order on the name indexes, and only the rest through the trigram index on this
 * text, so a common surname is never read row by row.
 */
export function searchRest(patient: FoldedFields): string {
  const digits = phoneDigits(patient.phone ?? '');
  return [
    `${FIRST}${rest(fold(patient.familyName))}`,
    ` ${FIRST}${rest(fold(patient.givenName))}`,
    ...[fold(patient.mrn), digits].filter((part) => part !== '').map((part) => ` ${part}`),
  ].join('');
}

/** The columns the write path stores beside a patient's own fields. */
export const foldedColumns = (patient: FoldedFields) => ({
  search_text: searchText(patient),
  name_key: nameKey(patient.familyName, patient.givenName),
  family_fold: fold(patient.familyName),
  given_fold: fold(patient.givenName),
  search_rest: searchRest(patient),
});
