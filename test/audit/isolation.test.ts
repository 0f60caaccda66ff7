/**
 * The audit chain needs READ COMMITTED. Ward's connections ask for it themselves, so a database
 * whose default is REPEATABLE READ (or SERIALIZABLE) keeps one unbroken chain under concurrent
 * writes.
 */
import test, { type ExecutionContext } from 'ava';
import knexFactory, { type Knex } from 'knex';
import { recordAudit } from '../../src/audit/record.ts';
import { verifyChain } from '../../src/audit/verify.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { acting } from '../../src/db/acting.ts';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

const read = (id: number) => ({
  action: 'record.read',
  module: 'patients',
  kind: 'patient',
  recordId: id,
  patientId: id,
});

async function defaulting(t: ExecutionContext, level: string, url = (u: string) => u): Promise<Knex> {
  const { url: base, knex: plain } = await testDatabase(t, { migrated: true });
  const name = new URL(base).pathname.slice(1);
  await plain.raw(`alter database ${name} set default_transaction_isolation = '${level}'`);
  // A session opened without Ward's settings gets the database's default.
  await plain.destroy();
  const probe = knexFactory({ client: 'pg', connection: base });
  const [row] = (await probe.raw('show default_transaction_isolation')).rows as Array<Record<string, string>>;
  await probe.destroy();
  t.is(row!.default_transaction_isolation, level);
  const knex = await openDatabase(
    loadConfig({ DATABASE_URL: url(base), WARD_STORAGE_DIR: await scratchDir() }),
    { pool: 8 },
  );
  t.teardown(() => knex.destroy());
  return knex;
}

async function concurrentAppends(knex: Knex): Promise<void> {
  const work = Array.from({ length: 60 }, (_, index) => {
    const who = acting(knex, `user:${index}:token:${index}`);
    return index % 2 === 0
      ? recordAudit(who, [read(index), read(index + 1000)])
      : who.transaction((_trx, bound) => recordAudit(bound, read(index)));
  });
  await Promise.all(work);
}

for (const level of ['repeatable read', 'serializable'])
  test(`on a database defaulting to ${level}, Ward's transactions are READ COMMITTED and the chain holds`, async (t) => {
    const knex = await defaulting(t, level);
    const isolation = await knex.transaction(async (trx) => {
      const { rows } = (await trx.raw('show transaction_isolation')) as {
        rows: Array<{ transaction_isolation: string }>;
      };
      return rows[0]!.transaction_isolation;
    });
    t.is(isolation, 'read committed');
    await concurrentAppends(knex);
    t.like(await verifyChain(knex), { intact: true, rows: 90 });
  });

test('options given in DATABASE_URL are kept beside the isolation Ward sets', async (t) => {
  const knex = await defaulting(t, 'repeatable read', (url) => {
    const withOptions = new URL(url);
    withOptions.searchParams.set('options', '-c statement_timeout=4321');
    return withOptions.toString();
  });
  const { rows } = (await knex.raw(
    "select current_setting('statement_timeout') as timeout, current_setting('default_transaction_isolation') as isolation",
  )) as { rows: Array<{ timeout: string; isolation: string }> };
  t.deepEqual(rows[0], { timeout: '4321ms', isolation: 'read committed' });
});
