/**
 * A key given twice in one object, found in the text JSON.parse already accepted: where it is, at
 * any depth, however strings escape quotes, compared by property with a plain walk over the
 * entries the text was written from.
 */
import test from 'ava';
import fc from 'fast-check';
import { findDuplicateKey } from '../../src/api/json-duplicate-key.ts';

test('a key twice at the top is found, with the root as its place', (t) => {
  t.deepEqual(findDuplicateKey('{"mrn": "A-1", "given": "Ann", "mrn": "B-2"}'), { key: 'mrn', pointer: '/' });
});

test('a key twice deep inside arrays and objects names the object it is in', (t) => {
  t.deepEqual(findDuplicateKey('{"a": [1, {"x": 1}, {"b/~": {"k": 1, "k": 2}}]}'), {
    key: 'k',
    pointer: '/a/2/b~1~0',
  });
});

test('the same key in two objects, or as a value, is no duplicate', (t) => {
  t.is(findDuplicateKey('[{"k": "k"}, {"k": {"k": "k"}}]'), null);
  t.is(findDuplicateKey('{"a": 1, "b": "a"}'), null);
  t.is(findDuplicateKey('"k"'), null);
  t.is(findDuplicateKey('{}'), null);
});

test('escapes are read as JSON reads them: quotes and backslashes inside strings, \\u spellings', (t) => {
  t.is(findDuplicateKey('{"a\\"": 1, "a\\\\": 2, "a": "}{\\"a\\": 1"}'), null);
  t.deepEqual(findDuplicateKey('{"\\u006drn": 1, "mrn": 2}'), { key: 'mrn', pointer: '/' });
});

test('nesting deeper than the call stack is scanned', (t) => {
  const depth = 200_000;
  t.deepEqual(findDuplicateKey(`${'['.repeat(depth)}{"k": 1, "k": 2}${']'.repeat(depth)}`), {
    key: 'k',
    pointer: `/${Array<string>(depth).fill('0').join('/')}`,
  });
});

/** A JSON value written from entries, so that an object may hold a key twice. */
type Written = null | number | string | Written[] | { entries: Array<[string, Written]> };

const written: fc.Arbitrary<Written> = fc.letrec<{ value: Written }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.integer(),
    fc.string({ unit: fc.constantFrom('k', '"', '\\', '{', '[', ',', ':', 'é') }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.record({
      entries: fc.array(fc.tuple(fc.constantFrom('k', 'j', '"', '\\', 'k\\"'), tie('value')), {
        maxLength: 4,
      }),
    }),
  ),
})).value;

function write(value: Written): string {
  if (Array.isArray(value)) return `[${value.map(write).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}: ${write(item)}`).join(',')}}`;
  return JSON.stringify(value);
}

/** The first repeated key in text order, the obvious recursive way. */
function reference(value: Written, path: string[]): { key: string; pointer: string } | null {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = reference(item, [...path, String(index)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const seen = new Set<string>();
  for (const [key, item] of value.entries) {
    if (seen.has(key)) return { key, pointer: `/${path.join('/')}` };
    seen.add(key);
    const found = reference(item, [...path, key.replaceAll('~', '~0').replaceAll('/', '~1')]);
    if (found !== null) return found;
  }
  return null;
}

test('the scan finds what a walk over the written entries finds', (t) => {
  fc.assert(
    fc.property(written, (value) => {
      const text = write(value);
      JSON.parse(text);
      t.deepEqual(findDuplicateKey(text), reference(value, []));
    }),
  );
});
