import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { encodeTuple, maxTupleBytes } from '../../src/backup/copy-tuple.ts';
import { sqlLiteral } from '../../src/db/sql-literal.ts';

/** What COPY TO writes for a value (CopyAttributeOutText): raw control bytes other than these stay raw. */
const copyField = (value: string | null): string =>
  value === null
    ? '\\N'
    : value.replace(
        /[\\\b\f\n\r\t\v]/g,
        (c) =>
          ({ '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' })[c] ?? '\\\\',
      );

function tuple(fields: Array<string | null>, casts: string[] = fields.map(() => '')): string {
  const row = Buffer.from(`${fields.map(copyField).join('\t')}\n`, 'utf8');
  const out = Buffer.alloc(maxTupleBytes(row.length - 1, casts.length) + 8, 0x7e);
  const end = encodeTuple(row, 0, row.length - 1, casts, out, 4);
  // Nothing written outside the bytes the tuple claims, nor beyond the promised bound.
  assert.equal(out.subarray(0, 4).toString(), '~~~~');
  assert.equal(out[end], 0x7e);
  return out.subarray(4, end).toString('utf8');
}

/** The tuple spelled out with sqlLiteral: what the byte-level fast path must be identical to. */
const expected = (fields: Array<string | null>, casts: string[] = fields.map(() => '')): string =>
  `(${fields.map((field, index) => (field === null ? 'NULL' : `${sqlLiteral(field)}${casts[index]}`)).join(',')})`;

const pgText = fc
  .string({ unit: 'binary', maxLength: 30 })
  .filter((s) => s.isWellFormed() && !s.includes('\0'));

test('plain fields are quoted as they are, NULL and empty string stay apart', (t) => {
  t.is(tuple(['1', 'Ann', '2024-01-01 00:00:00+00']), "('1','Ann','2024-01-01 00:00:00+00')");
  t.is(tuple([null, '', null]), "(NULL,'',NULL)");
  t.is(tuple(['']), "('')");
  t.is(tuple(['\\N', 'N']), "(E'\\\\N','N')");
});

test('quotes, backslashes and control characters take the escaped form', (t) => {
  t.is(
    tuple(["O'Brien", 'a\\b', 'line\nbreak', 'tab\there', '\x01']),
    "('O''Brien',E'a\\\\b',E'line\\nbreak',E'tab\\there',E'\\x01')",
  );
});

test('a cast follows every non-null literal of its column', (t) => {
  t.is(
    tuple(['12.50', null, "it's"], ['::numeric', '::numeric', '::numeric']),
    "('12.50'::numeric,NULL,'it''s'::numeric)",
  );
});

test('multi-byte text is copied byte for byte', (t) => {
  t.is(tuple(['🩺 Søndergaard', '\uFEFFbom', 'é\u0301']), "('🩺 Søndergaard','\uFEFFbom','é\u0301')");
});

test('a row with another number of fields than columns is refused', (t) => {
  const row = Buffer.from('1\t2\t3');
  t.throws(() => encodeTuple(row, 0, row.length, ['', ''], Buffer.alloc(100), 0), {
    message: 'COPY returned 3 fields for 2 columns',
  });
  t.throws(() => encodeTuple(row, 0, row.length, ['', '', '', ''], Buffer.alloc(100), 0), {
    message: 'COPY returned 3 fields for 4 columns',
  });
});

test('any row encodes exactly as sqlLiteral spells each value, within the promised bound', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.option(pgText), fc.constantFrom('', '::numeric')), { minLength: 1, maxLength: 6 }),
      (columns) => {
        const fields = columns.map(([field]) => field);
        const casts = columns.map(([, cast]) => cast);
        assert.equal(tuple(fields, casts), expected(fields, casts));
      },
    ),
  );
  t.pass();
});

test('a row in the middle of a buffer of rows reads only its own bytes', (t) => {
  const data = Buffer.from("1\tfirst\n2\tit's\n3\tlast\n");
  const start = data.indexOf('2');
  const end = data.indexOf('\n', start);
  const out = Buffer.alloc(64);
  t.is(out.subarray(0, encodeTuple(data, start, end, ['', ''], out, 0)).toString(), "('2','it''s')");
});
