import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { readStatements } from '../../src/backup/sql-statements.ts';
import type { ScriptItem } from '../../src/backup/sql-statements.ts';
import { quoteIdentifier, sqlLiteral } from '../../src/db/sql-literal.ts';

async function read(...chunks: string[]): Promise<ScriptItem[]> {
  async function* source(): AsyncGenerator<string> {
    yield* chunks;
  }
  const items: ScriptItem[] = [];
  for await (const item of readStatements(source())) items.push(item);
  return items;
}

const statement = (text: string): ScriptItem => ({ kind: 'statement', text });
const comment = (text: string): ScriptItem => ({ kind: 'comment', text });

test('comments and statements come out in order, statements trimmed with their semicolon', async (t) => {
  t.deepEqual(await read('-- header\n-- more\nSET a = 1;\n\nBEGIN;\nCOMMIT;\n'), [
    comment('-- header'),
    comment('-- more'),
    statement('SET a = 1;'),
    statement('BEGIN;'),
    statement('COMMIT;'),
  ]);
});

test('semicolons, dashes and quotes inside literals and quoted names do not split', async (t) => {
  const sql = `INSERT INTO "a;b""--" ("c") VALUES\n('x;y'),\n('-- no'),\n(E'\\\\'';'),\n('it''s;');\n`;
  t.deepEqual(await read(sql), [statement(sql.trim())]);
});

test('a comment line converted to CRLF reads as the same comment', async (t) => {
  t.deepEqual(await read('-- header\r\nBEGIN;\r\n'), [comment('-- header'), statement('BEGIN;')]);
});

test('a dash at the end of a chunk waits for the next chunk to decide', async (t) => {
  t.deepEqual(await read('SELECT 1 -', ' 1;\n-', '- end\n'), [statement('SELECT 1 - 1;'), comment('-- end')]);
});

test('a comment inside a statement is refused', async (t) => {
  await t.throwsAsync(read('SELECT 1 -- no\n;'), { message: /comment interrupts/ });
});

test('a script that stops inside a literal or before a semicolon is refused', async (t) => {
  await t.throwsAsync(read("INSERT INTO t VALUES ('abc"), { message: /inside a quoted string/ });
  await t.throwsAsync(read('BEGIN;\nINSERT INTO t VALUES (1)'), { message: /unterminated statement/ });
});

test('any chunking of a script of backup statements gives the same items', async (t) => {
  const text = fc
    .string({ unit: 'binary', maxLength: 20 })
    .filter((s) => s.isWellFormed() && !s.includes('\0'));
  const name = text.filter((s) => s !== '' && Buffer.byteLength(s) <= 63);
  const insert = fc
    .tuple(name, fc.array(fc.option(text), { minLength: 1, maxLength: 4 }))
    .map(
      ([table, values]) =>
        `INSERT INTO ${quoteIdentifier(table)} VALUES (${values.map(sqlLiteral).join(',')});`,
    );
  await fc.assert(
    fc.asyncProperty(
      fc.array(insert, { maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      async (inserts, cuts) => {
        const script = `-- header\n${inserts.join('\n')}\n-- end\n`;
        const points = [...new Set(cuts.map((cut) => cut % script.length))].sort((a, b) => a - b);
        const chunks = [...points, script.length].map((point, index, all) =>
          script.slice(index === 0 ? 0 : all[index - 1], point),
        );
        const expected = [comment('-- header'), ...inserts.map(statement), comment('-- end')];
        assert.deepEqual(await read(...chunks), expected);
      },
    ),
  );
  t.pass();
});
