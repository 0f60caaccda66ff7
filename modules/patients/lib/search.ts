/**
 * What a search box's text asks for, as a pure plan: each word is either a birth date (in one of
 * the forms people type) or folded text that must occur in the patient's search text. A query
 * made only of digits and phone punctuation (`+44 20 7946 0000`, `(555) 010-0100`) is one phone
 * number, whatever its spaces.
 */
import { fold, phoneDigits } from './fold.ts';

export type SearchTerm =
  /** Any of these days (YYYY-MM-DD): `03/04/1990` may be either the 3rd of April or March the 4th. */
  | { kind: 'date'; dates: string[] }
  /** Folded text; words shorter than SHORT_WORD letters match only where a word begins. */
  | { kind: 'text'; text: string };

/** Trigram indexes need three characters to narrow a search; shorter words match word starts. */
export const SHORT_WORD = 3;

const PHONE = /^\+?[\d\s().\-/]+$/u;
/** Fewer digits than this are a number to find anywhere, not a phone number. */
const PHONE_DIGITS = 5;

/** YYYY-MM-DD when year, month and day make a real day, else null. */
function isoDay(year: number, month: number, day: number): string | null {
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/**
 * The days a word names: ISO `1984-03-07`; day first with dots `7.3.1984` (as written in German
 * and much of Europe); with slashes or dashes, `07/03/1984` or `07-03-1984`, either the day or the
 * month first, since both are common: every reading that is a real day. Empty when it is no date.
 */
export function parseDates(word: string): string[] {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/u.exec(word);
  if (iso !== null)
    return [isoDay(Number(iso[1]), Number(iso[2]), Number(iso[3]))].filter((day) => day !== null);
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/u.exec(word);
  if (dotted !== null)
    return [isoDay(Number(dotted[3]), Number(dotted[2]), Number(dotted[1]))].filter((day) => day !== null);
  const either = /^(\d{1,2})([/-])(\d{1,2})\2(\d{4})$/u.exec(word);
  if (either === null) return [];
  const [first, second, year] = [Number(either[1]), Number(either[3]), Number(either[4])];
  const days = [isoDay(year, second, first), isoDay(year, first, second)].filter((day) => day !== null);
  return [...new Set(days)];
}

/** The terms of a search, every one of which a patient must match; none for a blank query. */
export function parseSearch(query: string): SearchTerm[] {
  const trimmed = query.trim();
  if (trimmed === '') return [];
  if (parseDates(trimmed).length === 0 && PHONE.test(trimmed) && phoneDigits(trimmed).length >= PHONE_DIGITS)
    return [{ kind: 'text', text: phoneDigits(trimmed) }];
  const terms: SearchTerm[] = [];
  for (const word of trimmed.split(/\s+/u)) {
    const dates = parseDates(word);
    if (dates.length > 0) {
      terms.push({ kind: 'date', dates });
      continue;
    }
    const text = fold(word).replaceAll(' ', '');
    if (text !== '') terms.push({ kind: 'text', text });
  }
  return terms;
}
