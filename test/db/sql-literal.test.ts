import test from 'ava';
import fc from 'fast-check';
import { isIdentifier, quoteIdentifier, sqlLiteral, unquoteIdentifier } from '../../src/db/sql-literal.ts';
import { testDatabase } from '../helpers/database.ts';

const pgText = fc
  .string({ unit: 'binary', maxLength: 40 })
  .filter((s) => s.isWellFormed() && !s.includes('\0'));

test('identifiers are double-quoted with inner quotes doubled', (t) => {
  t.is(quoteIdentifier('patient'), '"patient"');
  t.is(quoteIdentifier('Odd "name"; --'), '"Odd ""name""; --"');
  t.is(quoteIdentifier('ünï\ncode'), '"ünï\ncode"');
});

test('names PostgreSQL would reject or truncate are refused', (t) => {
  t.throws(() => quoteIdentifier(''), { message: /not a PostgreSQL identifier/ });
  t.throws(() => quoteIdentifier('a\0b'), { message: /not a PostgreSQL identifier/ });
  t.true(isIdentifier('x'.repeat(63)));
  t.false(isIdentifier('x'.repeat(64)));
  // 32 two-byte characters are 64 bytes: the limit is in bytes, not characters.
  t.false(isIdentifier('é'.repeat(32)));
  t.true(isIdentifier('é'.repeat(31)));
});

test('unquoteIdentifier undoes quoteIdentifier', (t) => {
  fc.assert(
    fc.property(pgText.filter(isIdentifier), (name) => unquoteIdentifier(quoteIdentifier(name)) === name),
  );
  t.throws(() => unquoteIdentifier('"a"b"'));
});

test('plain text becomes a standard string, quotes doubled', (t) => {
  t.is(sqlLiteral(null), 'NULL');
  t.is(sqlLiteral(''), "''");
  t.is(sqlLiteral("O'Brien"), "'O''Brien'");
  t.is(sqlLiteral('{"a":"b"} 🩺'), `'{"a":"b"} 🩺'`);
});

test('backslashes and control characters make an E string with every control escaped', (t) => {
  t.is(sqlLiteral('\\x00ff'), "E'\\\\x00ff'");
  t.is(sqlLiteral("a\nb\r\n\tc'd"), "E'a\\nb\\r\\n\\tc''d'");
  t.is(sqlLiteral('\b\f\v\x01\x1f'), "E'\\b\\f\\x0b\\x01\\x1f'");
  // The hex escape always has two digits, so a following hex digit stays a character.
  t.is(sqlLiteral('\x01a'), "E'\\x01a'");
  t.false(/[\n\r]/.test(sqlLiteral('line\nbreak\r')));
});

test('NUL, which PostgreSQL text cannot hold, is refused', (t) => {
  t.throws(() => sqlLiteral('a\0b'), { message: /NUL/ });
});

test('PostgreSQL reads every literal back as the original text, whatever standard_conforming_strings says', async (t) => {
  const { knex } = await testDatabase(t);
  const values = fc.sample(fc.option(pgText), { numRuns: 500, seed: 3 });
  values.push('\\', "'", "\\'", "''", '\\\\', '\n', '\r\n', '\uFEFF', 'a\x7fb', '\u2028');
  const query = `SELECT i, v FROM (VALUES ${values.map((value, i) => `(${i}, ${sqlLiteral(value)})`).join(', ')}) AS s (i, v) ORDER BY i`;
  for (const setting of ['on', 'off']) {
    const rows = await knex.transaction(async (trx) => {
      await trx.raw(`SET LOCAL standard_conforming_strings = ${setting}`);
      await trx.raw('SET LOCAL escape_string_warning = off');
      return (await trx.raw<{ rows: Array<{ v: string | null }> }>(query)).rows;
    });
    t.deepEqual(
      rows.map((row) => row.v),
      values,
      `standard_conforming_strings = ${setting}`,
    );
  }
});
