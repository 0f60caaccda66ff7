/**
 * The sign-in throttle's store on a real database, on a fake clock: what it writes, what a refusal
 * leaves, what it deletes once it no longer matters, and two stores (two replicas) on one database.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { newDeviceSecret, deviceHash, postgresSignInThrottle } from '../../src/auth/throttle-store.ts';
import { testDatabase } from '../helpers/database.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function store(t: ExecutionContext) {
  const { knex } = await testDatabase(t, { migrated: true });
  const clock = { now: Date.parse('2026-03-02T08:00:00Z') };
  return { knex, clock, throttle: postgresSignInThrottle(knex, { now: () => clock.now }) };
}

const keys = (knex: Knex) => knex('core_sign_in_count').orderBy('key').pluck('key');

test('an allowed attempt is counted under its four keys (three for IPv4); a success withdraws it', async (t) => {
  const { knex, throttle } = await store(t);
  t.deepEqual(await throttle.attempt('Ada', '2001:db8:1:2::7', null), { allowed: true, trusted: false });
  t.deepEqual(await keys(knex), [
    'address:2001:db8:1:2::/64',
    'network:2001:db8:1::/48',
    'pair:2001:db8:1:2::/64\nada',
    'user:ada',
  ]);
  await throttle.succeeded('ada', '2001:db8:1:2::7', false, null);
  t.deepEqual(await keys(knex), [], 'nothing is left to count');
  await throttle.attempt('ada', '192.0.2.1', null);
  t.deepEqual(await keys(knex), ['address:192.0.2.1', 'pair:192.0.2.1\nada', 'user:ada']);
});

test('a refused attempt writes nothing, not even the keys it was refused under', async (t) => {
  const { knex, throttle } = await store(t);
  for (let i = 0; i < 100; i++) await throttle.attempt(`user${i}`, '192.0.2.7', null);
  const before = await knex('core_sign_in_count').orderBy('key').select();
  t.like(await throttle.attempt('someone new', '192.0.2.7', null), { allowed: false, reason: 'address' });
  t.deepEqual(await knex('core_sign_in_count').orderBy('key').select(), before);
});

test('rows that no longer matter are deleted by later attempts, trusted browsers once their trust has run out', async (t) => {
  const { knex, clock, throttle } = await store(t);
  await throttle.attempt('ada', '192.0.2.1', null);
  const device = deviceHash(newDeviceSecret())!;
  await throttle.succeeded('ada', '192.0.2.1', false, device);
  await throttle.attempt('grace', '192.0.2.2', null);
  clock.now += 61 * MINUTE;
  await throttle.attempt('someone', '192.0.2.3', null);
  t.deepEqual(
    await keys(knex),
    ['address:192.0.2.3', 'pair:192.0.2.3\nsomeone', 'user:someone'],
    "grace's counts are gone",
  );
  t.is(
    await knex('core_sign_in_device')
      .count({ n: '*' })
      .first()
      .then((row) => Number(row?.n)),
    1,
  );
  clock.now += 90 * DAY;
  await throttle.attempt('someone', '192.0.2.3', null);
  t.deepEqual(await knex('core_sign_in_device').select(), [], 'the trust ran out');
});

test('two stores on one database (two replicas) refuse alike: attempts sent to both at once pass five times in all', async (t) => {
  const { knex, clock } = await store(t);
  const other = postgresSignInThrottle(knex, { now: () => clock.now });
  const first = postgresSignInThrottle(knex, { now: () => clock.now });
  const decisions = await Promise.all(
    Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? first : other).attempt('ada', '192.0.2.1', null)),
  );
  t.is(decisions.filter((decision) => decision.allowed).length, 5);
  t.true(decisions.every((decision) => decision.allowed || decision.reason === 'pair'));
});

test('the database keeps only the SHA-256 of a device secret; a secret that is not well formed is never looked up', async (t) => {
  const { knex, throttle } = await store(t);
  const secret = newDeviceSecret();
  t.regex(secret, /^ward_d_[A-Za-z0-9_-]{43}$/);
  await throttle.succeeded('ada', '192.0.2.1', false, deviceHash(secret));
  const [row] = await knex('core_sign_in_device').select('device_hash', 'username');
  t.is(row.username, 'ada');
  t.is((row.device_hash as Buffer).length, 32);
  t.false((row.device_hash as Buffer).toString('latin1').includes(secret.slice(7)));
  t.true(await throttle.trusted('ADA', deviceHash(secret)!));
  t.false(await throttle.trusted('grace', deviceHash(secret)!));
  for (const bad of [undefined, '', 'ward_d_short', secret.replace('ward_d_', 'ward_s_'), `${secret}x`])
    t.is(deviceHash(bad), null, String(bad));
});
