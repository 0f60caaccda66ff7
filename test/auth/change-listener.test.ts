/**
 * The principal cache is only as good as its invalidation: when the LISTEN connection dies, the
 * app must stop trusting the cache at once and start again only once it listens again.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { grantRole } from '../../src/auth/users.ts';
import { addUser, call, installedDatabase, signIn, startApp } from '../helpers/app.ts';

const GRANTS = { roles: { intake_operator: ['intake.job.read'] } };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const listeners = async (knex: Knex) =>
  (await knex('pg_stat_activity')
    .where('datname', knex.raw('current_database()'))
    .andWhere('query', 'LISTEN ward_auth')
    .pluck('pid')) as number[];

test('a dropped LISTEN connection disables the cache until it is back; revocations meanwhile still apply', async (t) => {
  const { knex } = await installedDatabase(t);
  const id = await addUser(knex, 'olga', ['intake_operator']);
  const { base } = await startApp(t, knex, { grants: GRANTS });
  const { token } = await signIn(base, 'olga');
  const jobs = () => call(base, 'GET', '/api/v1/intake/jobs', { token });
  t.is((await jobs()).status, 200);

  const [pid] = await listeners(knex);
  t.truthy(pid);
  await knex.raw('select pg_terminate_backend(?)', [pid as number]);
  await pause(50);
  // Lost while nobody listened: only a disabled cache makes this revocation visible.
  await knex.raw(`delete from base_user_role where user_id = ?`, [id]);
  t.is((await jobs()).status, 403);

  await grantRole(knex, id, 'intake_operator');
  for (let attempt = 0; (await listeners(knex)).length === 0; attempt++) {
    if (attempt > 100) return t.fail('the listener never came back');
    await pause(50);
  }
  t.is((await jobs()).status, 200);
  t.is((await jobs()).status, 200, 'cached again');
  await knex.raw(`delete from base_user_role where user_id = ?`, [id]);
  await pause(20);
  t.is((await jobs()).status, 403, 'and invalidated again by notifications');
});
