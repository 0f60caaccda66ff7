import test from 'ava';
import fc from 'fast-check';
import { CsvSplitter, formatCsvRow, parseCsv } from '../../../modules/migration_import/lib/csv.ts';
import type { CsvRecord } from '../../../modules/migration_import/lib/csv.ts';

async function* texts(...parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

const parse = async (...parts: string[]): Promise<CsvRecord[]> => {
  const records: CsvRecord[] = [];
  for await (const record of parseCsv(texts(...parts))) records.push(record);
  return records;
};

test('plain lines split on commas, numbered by line; CRLF and blank lines are handled', async (t) => {
  t.deepEqual(await parse('a,b\r\n\n', 'c,,d\n', 'e'), [
    { line: 1, fields: ['a', 'b'] },
    { line: 3, fields: ['c', '', 'd'] },
    { line: 4, fields: ['e'] },
  ]);
});

test('quoted fields keep commas, doubled quotes and line breaks, and later lines still count', async (t) => {
  t.deepEqual(await parse('"a,1","say ""hi""","two\nlines"\r\nnext,"', '"\n'), [
    { line: 1, fields: ['a,1', 'say "hi"', 'two\nlines'] },
    { line: 3, fields: ['next', ''] },
  ]);
});

test('a quote inside an unquoted field is kept as text', async (t) => {
  t.deepEqual(await parse(`height,5'10"\n`), [{ line: 1, fields: ['height', `5'10"`] }]);
});

test('text after a closing quote fails that record only; reading goes on at the next line', async (t) => {
  t.deepEqual(await parse('"ok",x\n"bad"x,y\nlast\n'), [
    { line: 1, fields: ['ok', 'x'] },
    {
      line: 2,
      column: 0,
      problem: {
        row: 2,
        field: 'field 1',
        code: 'csv_bad_quote',
        severity: 'error',
        message:
          'unexpected "x" after the closing quote of field 1; a quote inside a quoted field must be doubled ("")',
      },
    },
    { line: 3, fields: ['last'] },
  ]);
});

test('an unclosed quote is reported on the line it opened, once, at the end', async (t) => {
  t.deepEqual(await parse('a,b\nc,"never\nclosed\n'), [
    { line: 1, fields: ['a', 'b'] },
    {
      line: 2,
      column: 1,
      problem: {
        row: 2,
        field: 'field 2',
        code: 'csv_unclosed_quote',
        severity: 'error',
        message:
          'the quoted field that starts on line 2 is never closed; a quote inside a field must be doubled ("")',
      },
    },
  ]);
});

test('a record over the limit is thrown after the records before it are delivered', (t) => {
  const splitter = new CsvSplitter(10);
  t.deepEqual(splitter.push('a,b\n"0123456789'), [{ line: 1, fields: ['a', 'b'] }]);
  const fault = t.throws(() => splitter.push('more'));
  t.is(
    fault?.message,
    'the record starting on line 2 is longer than 10 characters (is a quote left open?); reading stopped',
  );
});

test('a closing quote at the end of a chunk waits for the next chunk before deciding', async (t) => {
  t.deepEqual(await parse('"a"', '"b"\n'), [{ line: 1, fields: ['a"b'] }]);
});

const field = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'é', ' ', ',', '"', '\n', '\r', '\r\n') }),
  fc.string(),
);

test('property: formatted rows parse back to the same fields, however the text is chunked', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(field, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
      fc.constantFrom('\n', '\r\n'),
      fc.boolean(),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
      async (rows, newline, trailing, sizes) => {
        const text = rows.map(formatCsvRow).join(newline) + (trailing ? newline : '');
        const parts: string[] = [];
        for (let at = 0, index = 0; at < text.length; index++) {
          const size = sizes[index % sizes.length]!;
          parts.push(text.slice(at, at + size));
          at += size;
        }
        const parsed = await parse(...parts);
        t.deepEqual(
          parsed.map((record) => ('fields' in record ? record.fields : record.problem)),
          rows,
        );
        let line = 1;
        const lines = rows.map((row) => {
          const start = line;
          line += formatCsvRow(row).split('\n').length;
          return start;
        });
        t.deepEqual(
          parsed.map((record) => record.line),
          lines,
        );
      },
    ),
    { numRuns: 300 },
  );
});
