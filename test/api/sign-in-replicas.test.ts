/**
 * The sign-in throttle's counts are in the database: two real backend processes on one database
 * count the same failures, and a backend started again still has them. The other 98 or 99
 * failures are counted as a third replica would, through the same store, to spare the test a
 * hundred password hashes; the backends' own failures are what each must see of the other's.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { postgresSignInThrottle } from '../../src/auth/throttle-store.ts';
import { PASSWORD, addUser, authEnv, call, installedDatabase } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';
import { serve } from '../helpers/serve.ts';

const WRONG = 'not the password';
const CLINIC = '203.0.113.7';
/** The address limit refuses (on the real clock, its 15 minutes have begun to run). */
const SHUT = /^too many failed sign-ins from this address; try again in \d+ s$/;

/** `ward backend` on the database, behind a trusted proxy so that each request names its address. */
async function backend(t: ExecutionContext, url: string) {
  const served = await serve({
    ...authEnv(url, await scratchDir()),
    WARD_TRUST_PROXY: 'on',
    LOG_LEVEL: 'error',
  });
  let stopped = false;
  t.teardown(async () => {
    if (!stopped) await served.stop();
  });
  return {
    login: (username: string, password: string) =>
      call(served.base, 'POST', '/api/v1/auth/login', {
        json: { username, password },
        headers: { 'x-forwarded-for': CLINIC },
      }),
    stop: async () => {
      stopped = true;
      await served.stop();
    },
  };
}

/** Failed sign-ins from the clinic's address counted as a third replica counts them. */
async function failuresElsewhere(t: ExecutionContext, knex: Knex, count: number) {
  const throttle = postgresSignInThrottle(knex);
  for (let i = 0; i < count; i++)
    t.true((await throttle.attempt(`elsewhere${i}`, CLINIC, null)).allowed, `failure ${i + 1}`);
}

test("two backends on one database count each other's failures: an address shut on one is shut on both", async (t) => {
  const { url, knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const [first, second] = await Promise.all([backend(t, url), backend(t, url)]);
  await failuresElsewhere(t, knex, 98);
  t.is((await first.login('throwaway1', WRONG)).status, 401, 'the 99th failure, on the first backend');
  t.is((await second.login('throwaway2', WRONG)).status, 401, 'the 100th, on the second');
  for (const [name, replica] of [
    ['first', first],
    ['second', second],
  ] as const) {
    const refused = await replica.login('ada', PASSWORD);
    t.is(refused.status, 429, `the ${name} backend: ${refused.text}`);
    t.regex((refused.body as { error: { message: string } }).error.message, SHUT);
  }
});

test('a backend started again still counts the failures from before: a restart does not reopen a shut address', async (t) => {
  const { url, knex } = await installedDatabase(t);
  await addUser(knex, 'ada', ['admin']);
  const before = await backend(t, url);
  await failuresElsewhere(t, knex, 99);
  t.is((await before.login('throwaway', WRONG)).status, 401, 'the 100th failure');
  t.is((await before.login('ada', PASSWORD)).status, 429);
  await before.stop();
  const after = await backend(t, url);
  const refused = await after.login('ada', PASSWORD);
  t.is(refused.status, 429, refused.text);
  t.regex((refused.body as { error: { message: string } }).error.message, SHUT);
});
