/** Where a JSON syntax error is, in lines and columns, whichever form V8's message takes. */
import test from 'ava';
import fc from 'fast-check';
import { describeJsonError } from '../../src/errors/json-error.ts';

const described = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (error) {
    return describeJsonError(text, error as Error);
  }
  throw new Error(`${text} is valid JSON`);
};

test('an unexpected token is placed at its line and column', (t) => {
  t.regex(described('{\n  "a": 1,\n  ]\n}'), /^is not valid JSON: .* at line 3, column 3$/);
});

test('a token V8 reports only with a snippet is found by where the prefix first fails', (t) => {
  t.regex(described('{"roles": ["admin"]]'), /^is not valid JSON: .* at line 1, column 20$/);
});

test('an input that ends too early is placed at its end', (t) => {
  t.regex(described('{"a": [1, 2'), /^is not valid JSON: .* at line 1, column 12$/);
});

test('control characters in the reason are escaped, so the message stays on one line', (t) => {
  t.notRegex(described('{"a": "x\ny"}'), /\n/);
});

test('property: a stray character after valid JSON is placed exactly where it was put', (t) => {
  fc.assert(
    fc.property(fc.json(), fc.constantFrom('}', ']', ','), (json, stray) => {
      const text = `${json}\n${stray}`;
      const lines = text.split('\n');
      t.regex(described(text), new RegExp(`at line ${lines.length}, column 1$`));
    }),
  );
});
