/**
 * Backup INSERT statements as COPY rows: every value sqlLiteral writes comes out as COPY text that
 * reads back as the same value, and anything backup does not write is left to run as SQL.
 */
import test from 'ava';
import fc from 'fast-check';
import { decodeCopyField } from '../../src/backup/copy-text.ts';
import { insertToCopy } from '../../src/backup/insert-to-copy.ts';
import { sqlLiteral } from '../../src/db/sql-literal.ts';

const value = fc.option(
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('\\', "'", '\t', '\n', '\r', '\b', '\f', '\x01', '\x1f'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
  }),
);

test('any rows of values sqlLiteral writes come out as COPY rows that read back as the same values', (t) => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 4 })
        .chain((width) =>
          fc.array(fc.array(value, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 5 }),
        ),
      fc.boolean(),
      (rows, overriding) => {
        const names = rows[0]!.map((_, index) => `"c${index}"`);
        const sql =
          `INSERT INTO "t" (${names.join(', ')}) ${overriding ? 'OVERRIDING SYSTEM VALUE ' : ''}VALUES\n` +
          `${rows.map((row) => `(${row.map(sqlLiteral).join(',')})`).join(',\n')};`;
        const copy = insertToCopy(sql);
        t.truthy(copy);
        t.is(copy!.table, '"t"');
        t.is(copy!.columns, `(${names.join(', ')})`);
        t.is(copy!.rows, rows.length);
        const lines = copy!.text.split('\n');
        t.is(lines.pop(), '');
        t.deepEqual(
          lines.map((line) => line.split('\t').map(decodeCopyField)),
          rows,
        );
      },
    ),
  );
});

test("the seed tracking's one-line INSERT, with spaces between values, converts too", (t) => {
  const copy = insertToCopy(
    `INSERT INTO "core_external_id" (module_name, xml_id) VALUES ('lab', 'a'), ('lab', 'it''s');`,
  );
  t.deepEqual(copy, {
    table: '"core_external_id"',
    columns: '(module_name, xml_id)',
    text: "lab\ta\nlab\tit's\n",
    rows: 2,
  });
});

test('what backup does not write is left to run as SQL', (t) => {
  for (const sql of [
    `INSERT INTO "t" ("a") VALUES ('12.50'::numeric);`,
    `INSERT INTO "t" ("a") VALUES (E'\\u00e9');`,
    `INSERT INTO "t" ("a") VALUES ('back\\slash');`,
    `INSERT INTO "t" ("a") VALUES ('tab\there');`,
    `INSERT INTO "t" ("a") VALUES (1);`,
    `INSERT INTO "t" ("a", "b") VALUES ('1');`,
    `INSERT INTO "t" ("a") VALUES ('1') RETURNING *;`,
    `INSERT INTO "t" DEFAULT VALUES;`,
    `INSERT INTO "t" ("a") SELECT 1;`,
    `INSERT INTO "t" ("a") VALUES ('unterminated);`,
  ])
    t.is(insertToCopy(sql), null, sql);
});
