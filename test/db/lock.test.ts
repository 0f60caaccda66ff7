/**
 * Whether a lock is held, read without taking it: how `ward modules restart` tells that a backend
 * is applying its plan while none listens yet.
 */
import test from 'ava';
import { LOCK_KEYS, lockHeld, withAdvisoryLock } from '../../src/db/lock.ts';
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
