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

const messageOf = (password: string) => passwordProblem(password)?.message ?? null;

test('password rules: at least 12 characters, at most 1024 bytes', (t) => {
  t.is(passwordProblem('x'.repeat(12)), null);
  t.deepEqual(passwordProblem('short'), {
    message: 'the password is too short: use at least 12 characters',
    hint: 'choose a longer passphrase',
  });
  t.is(messageOf('😀'.repeat(12)), null, 'characters, not bytes or UTF-16 units');
  t.is(messageOf('x'.repeat(1025)), 'the password is too long: at most 1024 bytes');
});

test('a password of only spaces, or with a control character, is refused; spaces between words are fine', (t) => {
  t.is(messageOf(' '.repeat(12)), 'the password is only spaces');
  t.is(messageOf('\u00a0\u3000'.repeat(6)), 'the password is only spaces', 'any Unicode white space');
  const control = 'the password holds a control character (such as NUL, tab or escape)';
  t.is(messageOf('\0'.repeat(12)), control);
  t.is(messageOf('correct\thorse battery'), control);
  t.is(messageOf('correct horse battery\u001b'), control);
  t.is(messageOf('correct horse\u0085battery'), control, 'C1 controls too');
  t.regex(passwordProblem('\0'.repeat(12))!.hint, /characters you can type/);
  t.is(passwordProblem('  correct horse battery  '), null);
});

test('random passwords are 24 URL-safe characters and differ', (t) => {
  const a = randomPassword();
  t.regex(a, /^[A-Za-z0-9_-]{24}$/);
  t.not(a, randomPassword());
});
