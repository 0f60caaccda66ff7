/**
 * Whether a lock is held, read without taking it: how `ward modules restart` tells that a backend
 * is applying its plan while none listens yet. And the lock a backend's start takes on its pool's
 * connection, which must never go back to the pool still held.
 */
import test from 'ava';
import { LOCK_KEYS, lockHeld, withAdvisoryLock, withPooledAdvisoryLock } from '../../src/db/lock.ts';
import { openPool } from '../../src/db/pg-client.ts';
import { testDatabase } from '../helpers/database.ts';

test('lockHeld is true only while some session holds that very lock', async (t) => {
  const { url, knex } = await testDatabase(t);
  t.false(await lockHeld(knex, LOCK_KEYS.reconcile));
  const inside = await withAdvisoryLock(url, LOCK_KEYS.reconcile, () =>
    Promise.all([lockHeld(knex, LOCK_KEYS.reconcile), lockHeld(knex, LOCK_KEYS.schedule)]),
  );
  t.deepEqual(inside, [true, false]);
  t.false(await lockHeld(knex, LOCK_KEYS.reconcile));
});

test('a lock on a pooled connection is held while the work runs on it, and the connection goes back unlocked', async (t) => {
  const { url, knex } = await testDatabase(t);
  const pool = await openPool(url, 1);
  t.teardown(() => pool.end());
  const inside = await withPooledAdvisoryLock(pool, url, LOCK_KEYS.reconcile, async (session) => {
    const held = await lockHeld(knex, LOCK_KEYS.reconcile);
    const own = await session.query<{ n: string }>(
      `select count(*) as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`,
    );
    return { held, own: own.rows[0]?.n };
  });
  t.deepEqual(inside, { held: true, own: '1' }, 'held on the very session the work queries');
  t.false(await lockHeld(knex, LOCK_KEYS.reconcile));
  // The pool's one connection, now free, holds nothing.
  const after = await pool.query<{ n: string }>(
    `select count(*) as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`,
  );
  t.is(after.rows[0]?.n, '0');
});

test('a pooled lock is released when the work fails', async (t) => {
  const { url, knex } = await testDatabase(t);
  const pool = await openPool(url, 1);
  t.teardown(() => pool.end());
  await t.throwsAsync(
    withPooledAdvisoryLock(pool, url, LOCK_KEYS.reconcile, async () => {
      throw new Error('the work failed');
    }),
    { message: 'the work failed' },
  );
  t.false(await lockHeld(knex, LOCK_KEYS.reconcile));
});
