/**
 * The SDK's Unicode rules on their own: identifiers refuse every invisible character, text allows
 * the zero-width joiners Persian and Indic names need between letters, and each refusal names the
 * character and where it is. Properties check the rules on generated strings.
 */
import test from 'ava';
import fc from 'fast-check';
import { sdk } from '../../src/sdk/runtime.ts';
import { describeCharacter, identifierProblem, textProblem } from '../../src/text/text.ts';

const ZWNJ = '\u200C';
const ZWJ = '\u200D';

test('the sdk hands modules the text rules, frozen', (t) => {
  t.is(sdk.text.identifierProblem, identifierProblem);
  t.is(sdk.text.textProblem, textProblem);
  t.true(Object.isFrozen(sdk.text));
});

test('an identifier with a zero-width space: the code point, its name, why, and the character it is', (t) => {
  t.deepEqual(identifierProblem('MR\u200BN-1'), {
    codePoint: 0x200b,
    character: 'U+200B ZERO WIDTH SPACE',
    position: 3,
    reason: 'a zero-width character',
    message: 'contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 3',
  });
});

test('identifiers refuse zero-width, bidi, other format and control characters, odd spaces and lone surrogates', (t) => {
  const cases: Array<[string, string]> = [
    ['\u2060', 'U+2060 WORD JOINER (a zero-width character)'],
    ['\uFEFF', 'U+FEFF ZERO WIDTH NO-BREAK SPACE (a zero-width character)'],
    [ZWNJ, 'U+200C ZERO WIDTH NON-JOINER (a zero-width character)'],
    [ZWJ, 'U+200D ZERO WIDTH JOINER (a zero-width character)'],
    ['\u200E', 'U+200E LEFT-TO-RIGHT MARK (a bidirectional control)'],
    ['\u200F', 'U+200F RIGHT-TO-LEFT MARK (a bidirectional control)'],
    ['\u061C', 'U+061C ARABIC LETTER MARK (a bidirectional control)'],
    ['\u202E', 'U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control)'],
    ['\u2066', 'U+2066 LEFT-TO-RIGHT ISOLATE (a bidirectional control)'],
    ['\u2069', 'U+2069 POP DIRECTIONAL ISOLATE (a bidirectional control)'],
    ['\u00AD', 'U+00AD SOFT HYPHEN (an invisible format character)'],
    ['\u{E0041}', 'U+E0041 (an invisible format character)'],
    ['\u0000', 'U+0000 NULL (a control character)'],
    ['\t', 'U+0009 CHARACTER TABULATION (a control character)'],
    ['\u0085', 'U+0085 NEXT LINE (a control character)'],
    ['\u2028', 'U+2028 LINE SEPARATOR (a line or paragraph separator)'],
    ['\u00A0', 'U+00A0 NO-BREAK SPACE (a space other than U+0020 SPACE)'],
    ['\u3000', 'U+3000 IDEOGRAPHIC SPACE (a space other than U+0020 SPACE)'],
    ['\uD800', 'U+D800 (a lone surrogate, which is no character)'],
  ];
  for (const [character, described] of cases)
    t.is(identifierProblem(`A-${character}1`)?.message, `contains ${described} at character 3`, described);
});

test('identifiers accept letters of any script, marks, digits, punctuation and the plain space', (t) => {
  for (const value of ['MRN-0001', 'Zoë 42', 'José', 'علی‌زاده'.replace(ZWNJ, ''), 'क्ष-7', '病历 12', '🙂'])
    t.is(identifierProblem(value), null, value);
});

test('positions count characters, not UTF-16 units: an emoji before the problem counts once', (t) => {
  t.like(identifierProblem('🙂🙂\u200B'), { position: 3, codePoint: 0x200b });
});

test('names keep ZWNJ and ZWJ between letters (Persian, Indic) but not at an edge or beside a space', (t) => {
  // Persian family name Alizadeh: ZWNJ keeps "علی" unjoined from "زاده".
  t.is(textProblem(`علی${ZWNJ}زاده`), null);
  // Devanagari: ZWJ after the virama asks for the half form of KA.
  t.is(textProblem(`क्${ZWJ}ष`), null);
  // An emoji sequence: woman, ZWJ, medical symbol.
  t.is(textProblem(`👩${ZWJ}⚕️`), null);
  for (const value of [`${ZWNJ}Ali`, `Ali${ZWNJ}`, `Ali ${ZWJ}Reza`, `Ali${ZWNJ}${ZWNJ}Reza`])
    t.is(textProblem(value)?.reason, 'a zero-width character, allowed only between two letters', value);
});

test('names refuse bidi controls, other format characters, zero-width spaces and controls', (t) => {
  t.is(
    textProblem('\u202Eanna')?.message,
    'contains U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 1',
  );
  t.is(textProblem('An\u200Bna')?.character, 'U+200B ZERO WIDTH SPACE');
  t.is(textProblem('Mül\u00ADler')?.character, 'U+00AD SOFT HYPHEN');
  t.is(textProblem('Ann\na')?.character, 'U+000A LINE FEED');
  t.is(textProblem('Zoë\u00A0Lee'), null, 'a no-break space is visible: text keeps it');
});

const IGNORABLE = ['\u034F', '\uFE0F', '\u{E0100}', '\u3164', '\u115F', '\u17B4', '\u180B', '\uFFA0'];

test('identifiers refuse every default-ignorable character: grapheme joiner, variation selectors, Hangul fillers, Khmer and Mongolian ones', (t) => {
  for (const invisible of IGNORABLE) {
    const problem = identifierProblem(`MRN${invisible}-7`);
    t.like(problem, { codePoint: invisible.codePointAt(0), position: 4 }, invisible);
  }
  t.is(identifierProblem('MRN\uFE0F')?.character, 'U+FE0F VARIATION SELECTOR-16');
  t.is(
    identifierProblem('MRN\u{E0100}')?.message,
    'contains U+E0100 VARIATION SELECTOR-17 (a variation selector) at character 4',
  );
  t.is(
    identifierProblem('\u3164')?.message,
    'contains U+3164 HANGUL FILLER (a character that is not displayed) at character 1',
  );
  t.is(
    identifierProblem('❤️')?.codePoint,
    0xfe0f,
    'an emoji’s presentation selector too: an identifier is typed, not drawn',
  );
});

test('text refuses them too, but keeps a variation selector right after a symbol or emoji', (t) => {
  for (const value of ['❤️', '☎️ +33 1', '1️⃣', `👩${ZWJ}⚕️`, '👁️‍🗨️']) t.is(textProblem(value), null, value);
  for (const invisible of IGNORABLE) t.not(textProblem(`Kim${invisible}`), null, invisible);
  t.is(
    textProblem('Ann\uFE0Fa')?.message,
    'contains U+FE0F VARIATION SELECTOR-16 (a variation selector, allowed only right after a symbol or emoji) at character 4',
  );
  t.is(textProblem('❤️\uFE0F')?.position, 3, 'a second selector in a row');
  t.is(textProblem('\u3164\u3164')?.character, 'U+3164 HANGUL FILLER', 'a name that is only fillers');
});

test('multi-line text keeps tab, LF and CR, and nothing else of the controls', (t) => {
  t.is(textProblem('line one\r\n\tline two', { multiline: true }), null);
  t.is(textProblem('bell\u0007', { multiline: true })?.character, 'U+0007');
  t.is(textProblem('a\u2029b', { multiline: true })?.character, 'U+2029 PARAGRAPH SEPARATOR');
});

test('describeCharacter pads to four hex digits and names what it knows', (t) => {
  t.is(describeCharacter(0x7f), 'U+007F DELETE');
  t.is(describeCharacter(0x1f642), 'U+1F642');
});

/** Strings mixing ordinary characters with the invisible ones the rules are about. */
const mixed = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ZWNJ,
        ZWJ,
        '\u200B',
        '\u202E',
        '\u2066',
        '\u00AD',
        '\u00A0',
        '\t',
        '\n',
        '\u0000',
        '\uD800',
        '\u0301',
        'e\u0301',
        '\uFE0F',
        '\u{E0100}',
        '\u3164',
        '\u034F',
        '\u2764',
      ),
    },
  ),
  maxLength: 12,
});

const codePoints = (value: string) => [...value];

test('property: a problem is the first refused character, and its position and code point are right', (t) => {
  for (const check of [identifierProblem, (value: string) => textProblem(value)])
    fc.assert(
      fc.property(mixed, (value) => {
        const problem = check(value);
        if (problem === null) return true;
        const characters = codePoints(value);
        const at = characters[problem.position - 1];
        const before = characters.slice(0, problem.position - 1).join('');
        // The identifier rule judges each character alone, so whatever comes before the first
        // refused one passes; the text rule judges ZWNJ/ZWJ and variation selectors by their
        // neighbours, so a prefix can end on one that the next character would have allowed.
        return (
          at?.codePointAt(0) === problem.codePoint &&
          (check !== identifierProblem || check(before) === null) &&
          problem.message.endsWith(`at character ${problem.position}`)
        );
      }),
    );
  t.pass();
});

test('property: text is the lighter rule, and multi-line text lighter still', (t) => {
  fc.assert(
    fc.property(mixed, (value) => {
      if (identifierProblem(value) === null && textProblem(value) !== null) return false;
      return textProblem(value) !== null || textProblem(value, { multiline: true }) === null;
    }),
  );
  t.pass();
});

test('property: NFC never changes whether a value is refused', (t) => {
  fc.assert(
    fc.property(mixed, (value) => {
      const normal = value.normalize('NFC');
      return (
        (identifierProblem(value) === null) === (identifierProblem(normal) === null) &&
        (textProblem(value) === null) === (textProblem(normal) === null)
      );
    }),
  );
  t.pass();
});

test('property: no accepted identifier holds a default-ignorable character, and accepted text only the allowed ones in place', (t) => {
  fc.assert(
    fc.property(mixed, (value) => {
      const characters = codePoints(value);
      if (identifierProblem(value) === null && characters.some((c) => /\p{DI}/u.test(c))) return false;
      if (textProblem(value) !== null) return true;
      return characters.every(
        (c, i) =>
          !/\p{DI}/u.test(c) ||
          /[\u200C\u200D]/u.test(c) ||
          (/\p{Variation_Selector}/u.test(c) && i > 0 && /[\p{S}\p{Emoji}]/u.test(characters[i - 1]!)),
      );
    }),
  );
  t.pass();
});

test('property: printable ASCII is always accepted; one invisible character in it is found where it is', (t) => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((value) => value.replace(/[^\x20-\x7e]/g, 'x')),
      fc.nat(),
      fc.constantFrom('\u200B', '\u202E', '\u2060', '\u00AD', '\u0007'),
      (value, cut, invisible) => {
        const at = cut % (value.length + 1);
        const spliced = value.slice(0, at) + invisible + value.slice(at);
        const problem = identifierProblem(spliced);
        return (
          identifierProblem(value) === null &&
          textProblem(value) === null &&
          problem?.position === at + 1 &&
          problem.codePoint === invisible.codePointAt(0)
        );
      },
    ),
  );
  t.pass();
});
