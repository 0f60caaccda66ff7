/**
 * `sdk.batch.stage`: a batch copied into a temporary table through COPY reads back exactly as
 * given (any text, NULL, JSON, dates), lives only as long as its transaction, and needs one.
 */
import test from 'ava';
import fc from 'fast-check';
import type { BatchTable } from '../../src/sdk/index.ts';
import { copyField, stage } from '../../src/sdk/batch.ts';
import { testDatabase } from '../helpers/database.ts';

interface Row {
  note: string | null;
  day: string | null;
  data: object | null;
}

const SPEC: BatchTable<Row> = {
  table: 'unused',
  columns: [
    { name: 'note', type: 'text', of: (row) => row.note },
    { name: 'day', type: 'date', of: (row) => row.day },
    {
      name: 'data',
      type: 'text',
      cast: 'jsonb',
      of: (row) => (row.data === null ? null : JSON.stringify(row.data)),
    },
  ],
  touch: null,
};

/** Text PostgreSQL can hold: anything but NUL, with COPY's special characters made likely. */
const text = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('\\', '\t', '\n', '\r', 'N', '.', 'é', '日', '😀'),
      fc.string({ minLength: 1, maxLength: 1 }),
    ),
  })
  .map((value) => value.replaceAll('\0', ''));

test('copyField escapes what COPY reads specially and writes NULL as \\N', (t) => {
  t.is(copyField(null), '\\N');
  t.is(copyField(undefined), '\\N');
  t.is(copyField('a\\b\tc\nd\re'), 'a\\\\b\\tc\\nd\\re');
  t.is(copyField('\\N'), '\\\\N');
  t.is(copyField(42), '42');
});

test('a staged batch reads back exactly as given, in order, ids and NULLs included', async (t) => {
  const { knex } = await testDatabase(t);
  const rows = fc.sample(
    fc.record({
      id: fc.option(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { nil: undefined }),
      note: fc.option(text, { nil: null }),
      day: fc.option(
        fc
          .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
          .map((date) => date.toISOString().slice(0, 10)),
        { nil: null },
      ),
      data: fc.option(fc.dictionary(text, text), { nil: null }),
    }),
    { numRuns: 500, seed: 21 },
  );
  const read = await knex.transaction(async (trx) => {
    const table = await stage(
      trx,
      SPEC,
      rows.map(({ id, ...columns }) => ({ id, columns })),
    );
    return (
      await trx.raw(
        `select ord, id, note, to_char(day, 'YYYY-MM-DD') as day, data from ${table} order by ord`,
      )
    ).rows as Array<{
      ord: number;
      id: number | null;
      note: string | null;
      day: string | null;
      data: object | null;
    }>;
  });
  t.deepEqual(
    read,
    rows.map((row, ord) => ({ ord, id: row.id ?? null, note: row.note, day: row.day, data: row.data })),
  );
});

test('a staged table is gone when its transaction ends, and two batches of one transaction stay apart', async (t) => {
  const { knex } = await testDatabase(t);
  const row = (note: string) => ({ columns: { note, day: null, data: null } });
  const [first, second] = await knex.transaction(async (trx) => {
    const a = await stage(trx, SPEC, [row('a')]);
    const b = await stage(trx, SPEC, [row('b'), row('c')]);
    const count = async (table: string) =>
      Number((await trx.raw(`select count(*) as n from ${table}`)).rows[0].n);
    t.deepEqual([await count(a), await count(b)], [1, 2]);
    return [a, b];
  });
  const names = [first!, second!].map((table) => table.replace('pg_temp.', ''));
  const left = await knex.raw(`select count(*) as n from pg_class where relname = any(?)`, [names]);
  t.is(Number(left.rows[0].n), 0);
});

test('staging outside a transaction is refused and creates nothing', async (t) => {
  const { knex } = await testDatabase(t);
  await t.throwsAsync(stage(knex, SPEC, [{ columns: { note: 'x', day: null, data: null } }]), {
    message: /needs a transaction/,
  });
  const temporary = await knex.raw(`select count(*) as n from pg_class where relname like 'ward_stage_%'`);
  t.is(Number(temporary.rows[0].n), 0);
});
