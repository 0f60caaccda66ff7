import test from 'ava';
import {
  hashPassword,
  needsRehash,
  parsePasswordHash,
  passwordProblem,
  randomPassword,
  verifyPassword,
} from '../../src/auth/password.ts';

// Cheap parameters keep the suite fast; the format and the checks are the same.
const FAST = { ln: 10, r: 8, p: 1 };

test('a hash is one PHC-style string: scrypt, parameters, salt, hash', async (t) => {
  const hash = await hashPassword('correct horse battery');
  t.regex(hash, /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  t.false(hash.includes('correct horse'));
  t.like(parsePasswordHash(hash), { params: { ln: 15, r: 8, p: 1 } });
});

test('the right password verifies; a wrong one, a missing hash and garbage do not', async (t) => {
  const hash = await hashPassword('correct horse battery', FAST);
  t.true(await verifyPassword('correct horse battery', hash));
  t.false(await verifyPassword('correct horse batterY', hash));
  t.false(await verifyPassword('', hash));
  t.false(await verifyPassword('correct horse battery', null));
  t.false(await verifyPassword('correct horse battery', '!'));
  t.false(await verifyPassword('correct horse battery', 'plain text'));
});

test('the same password hashes differently each time (random salt)', async (t) => {
  t.not(await hashPassword('same password here', FAST), await hashPassword('same password here', FAST));
});

test('passwords are compared after Unicode normalisation', async (t) => {
  const hash = await hashPassword('caf\u00e9 au lait!!', FAST);
  t.true(await verifyPassword('cafe\u0301 au lait!!', hash));
});

test('needsRehash: old parameters or an unreadable hash', async (t) => {
  t.true(needsRehash(await hashPassword('correct horse battery', FAST)));
  t.false(needsRehash(await hashPassword('correct horse battery')));
  t.true(needsRehash('!'));
});

test('hashes with absurd costs are refused rather than computed', (t) => {
  t.is(parsePasswordHash('$scrypt$ln=40,r=8,p=1$c2FsdA$aGFzaA'), null);
  t.is(parsePasswordHash('$scrypt$ln=0,r=8,p=1$c2FsdA$aGFzaA'), null);
  t.is(parsePasswordHash('$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA'), null);
});

test('password rules: at least 12 characters, at most 1024 bytes', (t) => {
  t.is(passwordProblem('x'.repeat(12)), null);
  t.is(passwordProblem('short'), 'the password is too short: use at least 12 characters');
  t.is(passwordProblem('😀'.repeat(12)), null, 'characters, not bytes or UTF-16 units');
  t.is(passwordProblem('x'.repeat(1025)), 'the password is too long: at most 1024 bytes');
});

test('random passwords are 24 URL-safe characters and differ', (t) => {
  const a = randomPassword();
  t.regex(a, /^[A-Za-z0-9_-]{24}$/);
  t.not(a, randomPassword());
});
