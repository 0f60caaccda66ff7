import test from 'ava';
import knexFactory from 'knex';
import { lazyKnex } from '../../src/db/lazy-knex.ts';
import { testDatabase } from '../helpers/database.ts';

test('the stand-in refuses use before load, then behaves as the knex it loaded', async (t) => {
  const { url } = await testDatabase(t);
  let opened = 0;
  const lazy = lazyKnex(async () => {
    opened += 1;
    return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  });
  t.teardown(() => lazy.destroy());
  t.false(lazy.loaded());
  t.throws(() => lazy.knex.raw('select 1'), { message: /before it was loaded/ });
  t.throws(() => lazy.knex('core_module'), { message: /before it was loaded/ });
  const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
  t.is(a, b);
  t.is(opened, 1, 'loaded once however many ask');
  t.true(lazy.loaded());
  t.deepEqual((await lazy.knex.raw('select 1 as one')).rows, [{ one: 1 }]);
  await lazy.knex.schema.createTable('t', (table) => table.integer('n'));
  await lazy.knex('t').insert({ n: 2 });
  t.deepEqual(await lazy.knex('t').select('n'), [{ n: 2 }]);
  await lazy.knex.transaction(async (trx) => trx('t').insert({ n: 3 }));
  t.is((await lazy.knex('t').count<{ n: string }[]>('* as n'))[0]?.n, '2');
});

test('a failed load is tried again by the next caller; destroying a stand-in never loaded does nothing', async (t) => {
  const { url } = await testDatabase(t);
  let attempts = 0;
  const lazy = lazyKnex(async () => {
    attempts += 1;
    if (attempts === 1) throw new Error('the database is away');
    return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  });
  await t.throwsAsync(lazy.load(), { message: 'the database is away' });
  t.false(lazy.loaded());
  await lazy.load();
  t.true(lazy.loaded());
  await lazy.destroy();
  await t.notThrowsAsync(lazyKnex(() => Promise.reject(new Error('never called'))).destroy());
});
