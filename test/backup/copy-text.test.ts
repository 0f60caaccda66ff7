import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { CopyRowSplitter, decodeCopyField } from '../../src/backup/copy-text.ts';
import { testDatabase } from '../helpers/database.ts';

/** What PostgreSQL's COPY TO writes for a text value (CopyAttributeOutText in copyto.c). */
function encodeLikeCopyTo(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(/[\\\b\f\n\r\t\v]/g, (character) => {
    const escapes: Record<string, string> = {
      '\\': '\\\\',
      '\b': '\\b',
      '\f': '\\f',
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\v': '\\v',
    };
    return escapes[character]!;
  });
}

const decodeCopyLine = (line: string): Array<string | null> => line.split('\t').map(decodeCopyField);

/** The rows in what the splitter returns, as text without newlines. */
const rowsOf = (data: Buffer): string[] =>
  data.length === 0 ? [] : data.toString('utf8').slice(0, -1).split('\n');

/** Any text PostgreSQL can store: well-formed UTF-16 without NUL. */
const pgText = fc
  .string({ unit: 'binary', maxLength: 40 })
  .filter((s) => s.isWellFormed() && !s.includes('\0'));

const cases: Array<[string, string | null]> = [
  ['', ''],
  ['plain', 'plain'],
  ['\\N', null],
  ['\\\\N', '\\N'],
  ['a\\N', 'aN'],
  ['\\Na', 'Na'],
  ['\\\\', '\\'],
  ['\\b\\f\\n\\r\\t\\v', '\b\f\n\r\t\v'],
  ['it\'s "quoted"', 'it\'s "quoted"'],
  ['\\x41', 'A'],
  ['\\x4', '\x04'],
  ['\\x4g', '\x04g'],
  ['\\xg', 'xg'],
  ['\\x', 'x'],
  ['\\101', 'A'],
  ['\\1010', 'A0'],
  ['\\7', '\x07'],
  ['\\303\\251', 'é'],
  ['\\xc3\\xa9', 'é'],
  ['\\xc3\\251', 'é'],
  ['\\357\\273\\277bom', '\uFEFFbom'],
  ['\\q\\.\\,', 'q.,'],
  ['🩺\\n👩🏽‍⚕️', '🩺\n👩🏽‍⚕️'],
];

for (const [field, expected] of cases) {
  test(`COPY field ${JSON.stringify(field)} decodes to ${JSON.stringify(expected)}`, (t) => {
    t.is(decodeCopyField(field), expected);
  });
}

test('an octal escape above 377 keeps its low byte, as COPY FROM does', (t) => {
  // \777 is byte 0xff, which alone is not UTF-8.
  t.throws(() => decodeCopyField('\\777'), { instanceOf: TypeError });
  t.is(decodeCopyField('\\703\\251'), 'é');
});

test('byte escapes that are not whole UTF-8 characters are refused, not replaced', (t) => {
  t.throws(() => decodeCopyField('\\xc3'), { instanceOf: TypeError });
  t.throws(() => decodeCopyField('\\xc3x'), { instanceOf: TypeError });
  t.throws(() => decodeCopyField('\\xff'), { instanceOf: TypeError });
});

test('a field ending in a lone backslash is refused', (t) => {
  t.throws(() => decodeCopyField('abc\\'), { message: /lone backslash/ });
});

test('fields split on tabs only, escaped tabs stay inside their field', (t) => {
  t.deepEqual(decodeCopyLine('1\t\\N\ta\\tb\t'), ['1', null, 'a\tb', '']);
});

test('decoding what COPY TO writes gives back the value, for any text', (t) => {
  fc.assert(fc.property(fc.option(pgText), (value) => decodeCopyField(encodeLikeCopyTo(value)) === value));
  t.pass();
});

test('decoding a whole line gives back every field, nulls included', (t) => {
  fc.assert(
    fc.property(fc.array(fc.option(pgText), { minLength: 1, maxLength: 6 }), (fields) => {
      const line = fields.map(encodeLikeCopyTo).join('\t');
      assert.deepEqual(decodeCopyLine(line), fields);
    }),
  );
  t.pass();
});

test('rows come out whole however the chunks cut them, inside characters too', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.option(pgText), { minLength: 1, maxLength: 3 }), { maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 10 }),
      (rows, cuts) => {
        const lines = rows.map((fields) => fields.map(encodeLikeCopyTo).join('\t'));
        const data = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
        const points = [...new Set(cuts.map((cut) => (data.length === 0 ? 0 : cut % data.length)))].sort(
          (a, b) => a - b,
        );
        const splitter = new CopyRowSplitter();
        const seen: string[] = [];
        let from = 0;
        for (const point of [...points, data.length]) {
          seen.push(...rowsOf(splitter.push(data.subarray(from, point))));
          from = point;
        }
        splitter.end();
        assert.deepEqual(seen, lines);
      },
    ),
  );
  t.pass();
});

test('a leading byte-order mark is part of the value and survives chunking', (t) => {
  const splitter = new CopyRowSplitter();
  const data = Buffer.from('\uFEFFa\t\uFEFF\n', 'utf8');
  t.deepEqual(
    [...rowsOf(splitter.push(data.subarray(0, 2))), ...rowsOf(splitter.push(data.subarray(2)))],
    ['\uFEFFa\t\uFEFF'],
  );
});

test('data that stops inside a row is reported as truncated', (t) => {
  const splitter = new CopyRowSplitter();
  t.deepEqual(rowsOf(splitter.push(Buffer.from('1\tx\n2\ty'))), ['1\tx']);
  t.throws(() => splitter.end(), { message: /ended inside a row/ });
});

test('decoding real COPY output gives each value exactly as a query returns it', async (t) => {
  const { url } = await testDatabase(t);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  await client.query('CREATE TABLE samples (id integer PRIMARY KEY, value text, list text[], raw bytea)');
  const samples = fc.sample(fc.tuple(fc.option(pgText), fc.array(fc.option(pgText), { maxLength: 3 })), {
    numRuns: 300,
    seed: 11,
  });
  for (const [id, [value, list]] of samples.entries())
    await client.query('INSERT INTO samples VALUES ($1, $2, $3, convert_to($2, $4))', [
      id,
      value,
      list,
      'UTF8',
    ]);
  const expected = await client.query<{ value: string | null; list: string | null; raw: string | null }>(
    'SELECT value, list::text AS list, raw::text AS raw FROM samples ORDER BY id',
  );
  const splitter = new CopyRowSplitter();
  const decoded: Array<{ value: string | null; list: string | null; raw: string | null }> = [];
  const stream = client.query(copyTo('COPY (SELECT value, list, raw FROM samples ORDER BY id) TO STDOUT'));
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (const line of rowsOf(splitter.push(chunk))) {
      const [value, list, raw] = decodeCopyLine(line);
      decoded.push({ value: value ?? null, list: list ?? null, raw: raw ?? null });
    }
  }
  splitter.end();
  t.deepEqual(decoded, expected.rows);
});
