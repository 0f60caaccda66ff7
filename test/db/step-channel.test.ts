/**
 * The `ward_steps` channel on a real database: a long message is cut so that the payload stays
 * under PostgreSQL's 8000-byte NOTIFY limit, and what is sent is what `listenForSteps` hands on.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import pg from 'pg';
import { announceStep, listenForSteps, type StepNotice } from '../../src/db/step-channel.ts';
import { testDatabase } from '../helpers/database.ts';

/** A raw session LISTENing on the channel; `received()` returns every payload sent before the call. */
async function rawListener(t: ExecutionContext, url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  const payloads: string[] = [];
  client.on('notification', (message) => payloads.push(message.payload ?? ''));
  await client.query('LISTEN ward_steps');
  return {
    received: async () => {
      // PostgreSQL hands a listening session the notices committed before a query ahead of its answer.
      await client.query('select 1');
      return payloads;
    },
  };
}

const notice = (message: string | null): StepNotice => ({
  module: 'lab',
  operation: 'install',
  step: 'post_install',
  status: 'failed',
  message,
});

test('a message longer than 1000 characters is cut, and the payload stays under 8000 bytes', async (t) => {
  const { url, knex } = await testDatabase(t);
  const listener = await rawListener(t, url);
  // A control character is JSON's costliest: six bytes (\u0001) each.
  await announceStep(knex, notice('\u0001'.repeat(5000)));
  await announceStep(knex, notice('é'.repeat(1000)));
  await announceStep(knex, notice(null));
  const [long, atLimit, none] = await listener.received();
  t.true(Buffer.byteLength(long ?? '') < 8000, `${Buffer.byteLength(long ?? '')} bytes`);
  t.deepEqual(JSON.parse(long ?? ''), notice(`${'\u0001'.repeat(1000)}…`));
  t.deepEqual(JSON.parse(atLimit ?? ''), notice('é'.repeat(1000)), 'a message at the limit is kept whole');
  t.deepEqual(JSON.parse(none ?? ''), notice(null));
});

test('listenForSteps hands on each notice announced, and ignores payloads that are not one', async (t) => {
  const { url, knex } = await testDatabase(t);
  const notices: StepNotice[] = [];
  const feed = await listenForSteps(url, (received) => notices.push(received));
  t.teardown(() => feed.close());
  await knex.raw('select pg_notify(?, ?)', ['ward_steps', 'not json']);
  await knex.raw('select pg_notify(?, ?)', ['ward_steps', JSON.stringify({ module: 'lab' })]);
  await announceStep(knex, notice('x'.repeat(2000)));
  await feed.caughtUp();
  t.deepEqual(notices, [notice(`${'x'.repeat(1000)}…`)]);
});
