/**
 * The text of JSON bodies on its own: strict UTF-8 with the offset of the first bad byte, and NFC
 * of every string and key, however deep, refusing what no encoding can store. Properties compare
 * the UTF-8 check with Node's own and NFC with a plain recursive reference.
 */
import { isUtf8 } from 'node:buffer';
import { isDeepStrictEqual } from 'node:util';
import test from 'ava';
import fc from 'fast-check';
import { ApiError } from '../../src/errors/api-error.ts';
import { decodeUtf8, normaliseJson, utf8Break } from '../../src/api/json-text.ts';

const NFD = 'Jose\u0301';
const NFC = 'Jos\u00e9';

test('bytes that are not UTF-8: 400 invalid_utf8 naming the byte and its offset', (t) => {
  const latin1 = Buffer.concat([Buffer.from('{"title": "Jos'), Buffer.from([0xe9]), Buffer.from('"}')]);
  const error = t.throws(() => decodeUtf8(latin1), { instanceOf: ApiError });
  t.like(error, {
    status: 400,
    code: 'invalid_utf8',
    message:
      'the request body is not valid UTF-8: byte 0xE9 at byte offset 14 does not begin a valid UTF-8 character',
  });
  t.is(
    error?.hint,
    'encode the body as UTF-8 (Latin-1 or Windows-1252 text is the usual cause) and send it again',
  );
});

test('every way bytes fail to be UTF-8 is found where it starts', (t) => {
  const at = (...bytes: number[]) => utf8Break(Uint8Array.from(bytes));
  t.deepEqual(at(0x41, 0xff), { kind: 'byte', offset: 1, byte: 0xff });
  t.deepEqual(at(0x80), { kind: 'byte', offset: 0, byte: 0x80 }, 'a continuation byte first');
  t.deepEqual(at(0xc0, 0xaf), { kind: 'byte', offset: 0, byte: 0xc0 }, 'an overlong lead');
  t.deepEqual(at(0xe0, 0x80, 0xaf), { kind: 'byte', offset: 0, byte: 0xe0 }, 'an overlong three-byte form');
  t.deepEqual(at(0x41, 0xed, 0xa0, 0x80), { kind: 'byte', offset: 1, byte: 0xed }, 'an encoded surrogate');
  t.deepEqual(at(0xf4, 0x90, 0x80, 0x80), { kind: 'byte', offset: 0, byte: 0xf4 }, 'beyond U+10FFFF');
  t.deepEqual(
    at(0xc3, 0x28),
    { kind: 'byte', offset: 0, byte: 0xc3 },
    'a lead the next byte does not continue',
  );
  t.deepEqual(at(0x41, 0xe2, 0x82), { kind: 'truncated', offset: 1 });
  t.is(at(0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x99, 0x82), null);
  t.like(
    t.throws(() => decodeUtf8(Uint8Array.from([0x7b, 0xe2, 0x82]))),
    {
      message:
        'the request body is not valid UTF-8: it ends inside the character that starts at byte offset 1',
    },
  );
});

test('a byte order mark is kept, so JSON.parse refuses it as before', (t) => {
  t.is(decodeUtf8(Uint8Array.from([0xef, 0xbb, 0xbf, 0x31])), '\uFEFF1');
});

test('every string and key becomes NFC, at any depth, in arrays too', (t) => {
  const body = JSON.parse(
    JSON.stringify({ [NFD]: NFD, list: [NFD, 1, null, { [NFD]: [NFD] }], plain: 'x', n: 2, b: true }),
  ) as unknown;
  t.deepEqual(normaliseJson(body), {
    [NFC]: NFC,
    list: [NFC, 1, null, { [NFC]: [NFC] }],
    plain: 'x',
    n: 2,
    b: true,
  });
  t.is(normaliseJson(NFD), NFC);
  t.is(normaliseJson(5), 5);
});

test('renamed keys keep their order, and a "__proto__" key stays a key', (t) => {
  const body = JSON.parse(`{"a": 1, "${NFD}": 2, "__proto__": {"x": 1}, "z": 3}`) as Record<string, unknown>;
  const normal = normaliseJson(body) as Record<string, unknown>;
  t.deepEqual(Object.keys(normal), ['a', NFC, '__proto__', 'z']);
  t.is(Object.getPrototypeOf(normal), Object.prototype);
  t.deepEqual(normal['__proto__'], { x: 1 });
});

test('nesting deeper than the call stack is walked', (t) => {
  const depth = 100_000;
  const body = JSON.parse(`${'['.repeat(depth)}"${NFD}"${']'.repeat(depth)}`) as unknown;
  let inner = normaliseJson(body);
  for (let level = 0; level < depth; level++) inner = (inner as unknown[])[0];
  t.is(inner, NFC);
});

test('a lone surrogate escape is 400 invalid_json naming where it is', (t) => {
  const error = t.throws(() => normaliseJson(JSON.parse('{"a": [{"title": "x\\ud800y"}]}')), {
    instanceOf: ApiError,
  });
  t.like(error, {
    status: 400,
    code: 'invalid_json',
    message: 'the request body holds a lone surrogate \\uD800 at /a/0/title, which is no character',
  });
  t.like(
    t.throws(() => normaliseJson(JSON.parse('{"k\\udc00/~": 1}'))),
    {
      message: 'the request body holds a lone surrogate \\uDC00 at /k\udc00~1~0, which is no character',
    },
  );
});

test('two keys that are one in NFC are 400 duplicate_key, not a silent pick', (t) => {
  const error = t.throws(() => normaliseJson(JSON.parse(`{"in": {"${NFD}": 1, "${NFC}": 2}}`)), {
    instanceOf: ApiError,
  });
  t.like(error, {
    status: 400,
    code: 'duplicate_key',
    message: `the request body has the key "${NFC}" twice at /in once keys are in Unicode NFC`,
  });
});

/** NFC the obvious, recursive way. */
function reference(value: unknown): unknown {
  if (typeof value === 'string') return value.normalize('NFC');
  if (Array.isArray(value)) return value.map(reference);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key.normalize('NFC'), reference(item)]),
    );
  return value;
}

/** Whether some object in `value` has two keys that are one in NFC. */
function collides(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(collides);
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value).map((key) => key.normalize('NFC'));
  return new Set(keys).size < keys.length || Object.values(value).some(collides);
}

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('e', '\u0301', 'o', '\u0308', '\u00e9', 'A', '\u212B', '한', '\u1100\u1161'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 6,
});

test('property: the walk equals a recursive NFC, and a second pass changes nothing', (t) => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.constant(null),
      fc.array(tie('value')),
      fc.dictionary(text, tie('value')),
    ),
  })).value;
  fc.assert(
    fc.property(json, (value) => {
      const expected = reference(value);
      let normal: unknown;
      try {
        normal = normaliseJson(structuredClone(value));
      } catch (error) {
        // Only two keys that NFC makes one may be refused.
        return (error as ApiError).code === 'duplicate_key' && collides(value);
      }
      return (
        !collides(value) &&
        isDeepStrictEqual(normal, expected) &&
        isDeepStrictEqual(normaliseJson(structuredClone(normal)), normal)
      );
    }),
  );
  t.pass();
});

test('property: utf8Break finds a break exactly when Node says the bytes are not UTF-8, and all before it is', (t) => {
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 12 }),
    fc
      .tuple(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.uint8Array({ maxLength: 2 }), fc.nat())
      .map(([value, noise, at]) => {
        const clean = Buffer.from(value);
        const cut = at % (clean.length + 1);
        return new Uint8Array(Buffer.concat([clean.subarray(0, cut), noise, clean.subarray(cut)]));
      }),
  );
  fc.assert(
    fc.property(bytes, (value) => {
      const found = utf8Break(value);
      if (found === null) return isUtf8(value);
      return !isUtf8(value) && found.offset < value.length && isUtf8(value.subarray(0, found.offset));
    }),
  );
  t.pass();
});
