/**
 * Unicode rules for text that people type, read and compare (`sdk.text`, and Ward's own usernames). Ward keeps text in NFC:
 * JSON bodies and `sdk.http.queryText` are normalised on the way in, so "José" typed with a
 * combining accent and "José" typed precomposed are one MRN and one search. What NFC cannot fix
 * is a character nobody can see, which makes two values that look the same differ, or (a bidi
 * override) makes one value look like another. So:
 *
 * - An identifier (MRN, code, username) holds no control character (Cc), no format character (Cf:
 *   zero-width characters, bidi controls, soft hyphen, …), no line or paragraph separator (Zl, Zp),
 *   no space but U+0020 (a no-break space looks like a space), no lone surrogate, and no other
 *   character Unicode marks Default_Ignorable_Code_Point, which renderers draw as nothing: the
 *   combining grapheme joiner, variation selectors (an emoji's among them), Hangul fillers, Khmer
 *   inherent vowels, Mongolian free variation selectors, tags.
 * - Text (a name, a title, a note) holds no control character (multi-line text may hold tab, LF and
 *   CR), no line or paragraph separator, no lone surrogate, no default-ignorable character but a
 *   variation selector right after a symbol or emoji (❤️, 1️⃣: it picks how that one is drawn),
 *   and no format character except
 *   U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER between two letters, marks or
 *   symbols: Persian writes ZWNJ inside words (می‌خواهم), Indic scripts put ZWJ or ZWNJ after a
 *   virama to choose a conjunct's form, emoji sequences are joined by ZWJ. At the edges of a word
 *   or next to a space they change nothing visible and only hide a difference. (IDNA's CONTEXTJ
 *   rule is narrower still, but needs joining types JavaScript's regular expressions cannot see.)
 *   Variation selectors after a CJK ideograph or a Mongolian letter, which do change a glyph, are
 *   refused as well for now: no clinic text is known to need them, and each refusal names the
 *   character.
 *
 * Pure: no I/O, no state.
 */
/** A character a text rule refuses, and where it is. */
export interface TextProblem {
  codePoint: number;
  /** `U+200B ZERO WIDTH SPACE` (just the code point for characters without a name in Ward's table). */
  character: string;
  /** Counted in characters (code points), from 1. */
  position: number;
  /** Why it is refused: `a zero-width character`, `a bidirectional control`, `a control character`, … */
  reason: string;
  /** `contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 4`: put the field's name before it. */
  message: string;
}

const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff]);
const BIDI = new Set([
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

/** Names of the characters these rules refuse most often; controls by their usual alias. */
const NAMES: ReadonlyMap<number, string> = new Map([
  [0x0000, 'NULL'],
  [0x0009, 'CHARACTER TABULATION'],
  [0x000a, 'LINE FEED'],
  [0x000b, 'LINE TABULATION'],
  [0x000c, 'FORM FEED'],
  [0x000d, 'CARRIAGE RETURN'],
  [0x001b, 'ESCAPE'],
  [0x007f, 'DELETE'],
  [0x0085, 'NEXT LINE'],
  [0x00a0, 'NO-BREAK SPACE'],
  [0x00ad, 'SOFT HYPHEN'],
  [0x034f, 'COMBINING GRAPHEME JOINER'],
  [0x115f, 'HANGUL CHOSEONG FILLER'],
  [0x1160, 'HANGUL JUNGSEONG FILLER'],
  [0x17b4, 'KHMER VOWEL INHERENT AQ'],
  [0x17b5, 'KHMER VOWEL INHERENT AA'],
  [0x180b, 'MONGOLIAN FREE VARIATION SELECTOR ONE'],
  [0x180c, 'MONGOLIAN FREE VARIATION SELECTOR TWO'],
  [0x180d, 'MONGOLIAN FREE VARIATION SELECTOR THREE'],
  [0x180f, 'MONGOLIAN FREE VARIATION SELECTOR FOUR'],
  [0x061c, 'ARABIC LETTER MARK'],
  [0x180e, 'MONGOLIAN VOWEL SEPARATOR'],
  [0x2002, 'EN SPACE'],
  [0x2003, 'EM SPACE'],
  [0x2007, 'FIGURE SPACE'],
  [0x2009, 'THIN SPACE'],
  [0x200a, 'HAIR SPACE'],
  [0x200b, 'ZERO WIDTH SPACE'],
  [0x200c, 'ZERO WIDTH NON-JOINER'],
  [0x200d, 'ZERO WIDTH JOINER'],
  [0x200e, 'LEFT-TO-RIGHT MARK'],
  [0x200f, 'RIGHT-TO-LEFT MARK'],
  [0x2028, 'LINE SEPARATOR'],
  [0x2029, 'PARAGRAPH SEPARATOR'],
  [0x202a, 'LEFT-TO-RIGHT EMBEDDING'],
  [0x202b, 'RIGHT-TO-LEFT EMBEDDING'],
  [0x202c, 'POP DIRECTIONAL FORMATTING'],
  [0x202d, 'LEFT-TO-RIGHT OVERRIDE'],
  [0x202e, 'RIGHT-TO-LEFT OVERRIDE'],
  [0x202f, 'NARROW NO-BREAK SPACE'],
  [0x205f, 'MEDIUM MATHEMATICAL SPACE'],
  [0x2060, 'WORD JOINER'],
  [0x2061, 'FUNCTION APPLICATION'],
  [0x2062, 'INVISIBLE TIMES'],
  [0x2063, 'INVISIBLE SEPARATOR'],
  [0x2064, 'INVISIBLE PLUS'],
  [0x2066, 'LEFT-TO-RIGHT ISOLATE'],
  [0x2067, 'RIGHT-TO-LEFT ISOLATE'],
  [0x2068, 'FIRST STRONG ISOLATE'],
  [0x2069, 'POP DIRECTIONAL ISOLATE'],
  [0x3000, 'IDEOGRAPHIC SPACE'],
  [0x3164, 'HANGUL FILLER'],
  [0xfeff, 'ZERO WIDTH NO-BREAK SPACE'],
  [0xffa0, 'HALFWIDTH HANGUL FILLER'],
  [0xfff9, 'INTERLINEAR ANNOTATION ANCHOR'],
  [0xfffa, 'INTERLINEAR ANNOTATION SEPARATOR'],
  [0xfffb, 'INTERLINEAR ANNOTATION TERMINATOR'],
]);

/** Printable ASCII: most values are, and none of it is ever refused. */
const PLAIN = /^[\x20-\x7e]*$/;

const IDENTIFIER_REFUSED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;

const JOINABLE = '[\\p{L}\\p{M}\\p{S}]';
const JOINER_OUT_OF_PLACE = `(?<!${JOINABLE})[\\u200C\\u200D]|[\\u200C\\u200D](?!${JOINABLE})`;
/** \p{Emoji} as well as \p{S}: keycaps (1️⃣) put the selector after a digit. */
const SELECTOR_IN_PLACE = '(?<=[\\p{S}\\p{Emoji}])[\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}]';
const TEXT_INVISIBLE = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Default_Ignorable_Code_Point}]';
const TEXT_REFUSED = new RegExp(
  `(?![\\u200C\\u200D])(?!${SELECTOR_IN_PLACE})${TEXT_INVISIBLE}|${JOINER_OUT_OF_PLACE}`,
  'u',
);
const MULTILINE_REFUSED = new RegExp(
  `(?![\\t\\n\\r\\u200C\\u200D])(?!${SELECTOR_IN_PLACE})${TEXT_INVISIBLE}|${JOINER_OUT_OF_PLACE}`,
  'u',
);

/** `U+200B ZERO WIDTH SPACE`; just `U+E0041` for a character without a name here. */
export function describeCharacter(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES.get(codePoint) ?? selectorName(codePoint);
  return name === undefined ? hex : `${hex} ${name}`;
}

/** Unicode numbers the 256 variation selectors in two blocks: 1 to 16, then 17 to 256. */
function selectorName(codePoint: number): string | undefined {
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return `VARIATION SELECTOR-${codePoint - 0xfe00 + 1}`;
  if (codePoint >= 0xe0100 && codePoint <= 0xe01ef) return `VARIATION SELECTOR-${codePoint - 0xe0100 + 17}`;
  return undefined;
}

function reason(codePoint: number, character: string, rule: 'identifier' | 'text'): string {
  if (ZERO_WIDTH.has(codePoint))
    return rule === 'text' && (codePoint === 0x200c || codePoint === 0x200d)
      ? 'a zero-width character, allowed only between two letters'
      : 'a zero-width character';
  if (BIDI.has(codePoint)) return 'a bidirectional control';
  if (/\p{Cc}/u.test(character)) return 'a control character';
  if (/\p{Cs}/u.test(character)) return 'a lone surrogate, which is no character';
  if (/[\p{Zl}\p{Zp}]/u.test(character)) return 'a line or paragraph separator';
  if (/\p{Zs}/u.test(character)) return 'a space other than U+0020 SPACE';
  if (/\p{Variation_Selector}/u.test(character))
    return rule === 'text' && selectorName(codePoint) !== undefined
      ? 'a variation selector, allowed only right after a symbol or emoji'
      : 'a variation selector';
  if (!/\p{Cf}/u.test(character)) return 'a character that is not displayed';
  return 'an invisible format character';
}

function problemAt(value: string, index: number, rule: 'identifier' | 'text'): TextProblem {
  const codePoint = value.codePointAt(index)!;
  const character = describeCharacter(codePoint);
  const why = reason(codePoint, String.fromCodePoint(codePoint), rule);
  // Counted in characters (code points), from 1, as a person would count them.
  const position = [...value.slice(0, index)].length + 1;
  return {
    codePoint,
    character,
    position,
    reason: why,
    message: `contains ${character} (${why}) at character ${position}`,
  };
}

/** The first character an identifier may not hold, or null. Never throws. */
export function identifierProblem(value: string): TextProblem | null {
  if (PLAIN.test(value)) return null;
  const found = IDENTIFIER_REFUSED.exec(value);
  return found === null ? null : problemAt(value, found.index, 'identifier');
}

/** The first character text may not hold, or null; `multiline` allows tab, LF and CR. Never throws. */
export function textProblem(value: string, options: { multiline?: boolean } = {}): TextProblem | null {
  if (PLAIN.test(value)) return null;
  const found = (options.multiline === true ? MULTILINE_REFUSED : TEXT_REFUSED).exec(value);
  return found === null ? null : problemAt(value, found.index, 'text');
}
