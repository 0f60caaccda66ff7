import test from 'ava';
import { NO_PERMISSIONS } from '../../src/auth/permissions.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { PrincipalCache } from '../../src/auth/principal-cache.ts';

const principal = (userId: number): Principal => ({
  userId,
  username: `user${userId}`,
  roles: [],
  activeRoles: [],
  permissions: NO_PERMISSIONS,
  credential: {
    kind: 'session',
    ref: 'r',
    csrfSecret: 'c',
    expiresAt: new Date(8.64e15),
    lastSeenAt: new Date(0),
  },
  mustChangePassword: false,
  mustEnrolTwoFactor: false,
});

function enabled(options = {}) {
  const cache = new PrincipalCache(options);
  cache.setEnabled(true);
  return cache;
}

test('keeps nothing until change notifications are known to arrive', (t) => {
  const cache = new PrincipalCache();
  cache.set('k', principal(1), cache.generation);
  t.is(cache.get('k'), undefined);
  cache.setEnabled(true);
  cache.set('k', principal(1), cache.generation);
  t.is(cache.get('k')?.userId, 1);
  cache.setEnabled(false);
  t.is(cache.get('k'), undefined, 'disabling forgets everything: notifications may be lost from then on');
});

test('a notification for a user drops every credential of that user and no other', (t) => {
  const cache = enabled();
  cache.set('a1', principal(1), cache.generation);
  cache.set('a2', principal(1), cache.generation);
  cache.set('b', principal(2), cache.generation);
  cache.applyNotification('user:1');
  t.is(cache.get('a1'), undefined);
  t.is(cache.get('a2'), undefined);
  t.is(cache.get('b')?.userId, 2);
  cache.applyNotification('*');
  t.is(cache.size, 0);
});

test('an unreadable notification empties the cache rather than being ignored', (t) => {
  const cache = enabled();
  cache.set('b', principal(2), cache.generation);
  cache.applyNotification('something new');
  t.is(cache.size, 0);
});

test('a load that started before an invalidation does not store what it read', (t) => {
  const cache = enabled();
  const before = cache.generation;
  cache.applyNotification('user:7');
  cache.set('k', principal(1), before);
  t.is(cache.get('k'), undefined);
});

test('entries expire after the TTL, a backstop only', (t) => {
  let now = 0;
  const cache = enabled({ ttlMs: 1000, now: () => now });
  cache.set('k', principal(1), cache.generation);
  now = 999;
  t.truthy(cache.get('k'));
  now = 1000;
  t.is(cache.get('k'), undefined);
});

test('at capacity the oldest entry makes room', (t) => {
  const cache = enabled({ maxEntries: 2 });
  cache.set('a', principal(1), cache.generation);
  cache.set('b', principal(2), cache.generation);
  cache.set('c', principal(3), cache.generation);
  t.is(cache.get('a'), undefined);
  t.truthy(cache.get('b'));
  t.truthy(cache.get('c'));
});
