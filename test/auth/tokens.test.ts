import test from 'ava';
import { createHash } from 'node:crypto';
import {
  hashSecret,
  newCsrfSecret,
  newSecret,
  safeEqual,
  secretKey,
  secretKind,
} from '../../src/auth/tokens.ts';

test('secrets carry their kind in a prefix and 32 random bytes', (t) => {
  const session = newSecret('session');
  const token = newSecret('token');
  t.regex(session, /^ward_s_[A-Za-z0-9_-]{43}$/);
  t.regex(token, /^ward_t_[A-Za-z0-9_-]{43}$/);
  t.is(secretKind(session), 'session');
  t.is(secretKind(token), 'token');
  t.not(newSecret('token'), token);
});

test('anything not shaped like a secret is no secret (and never reaches the database)', (t) => {
  for (const value of [
    '',
    'ward_t_',
    `ward_t_${'a'.repeat(42)}`,
    `ward_t_${'a'.repeat(44)}`,
    `ward_x_${'a'.repeat(43)}`,
    `ward_t_${'a'.repeat(42)}=`,
    "ward_t_' or 1=1 --",
  ])
    t.is(secretKind(value), null, value);
});

test('only a 32-byte SHA-256 is kept; the cache key is the same digest in base64', (t) => {
  const secret = newSecret('token');
  const hash = hashSecret(secret);
  t.is(hash.length, 32);
  t.deepEqual(hash, createHash('sha256').update(secret).digest());
  t.is(secretKey(secret), hash.toString('base64'));
  t.is(hashSecret('abc').toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('safeEqual compares any two strings, whatever their lengths', (t) => {
  const csrf = newCsrfSecret();
  t.true(safeEqual(csrf, csrf));
  t.false(safeEqual(csrf, csrf.slice(1)));
  t.false(safeEqual(csrf, ''));
  t.false(safeEqual('', csrf));
});
