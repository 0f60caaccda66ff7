/**
 * Usernames and role names: taken in NFC, and a refusal names the invisible character that made a
 * value that looks valid invalid.
 */
import test from 'ava';
import { assertRoleName, assertUsername } from '../../src/auth/names.ts';
import { WardError } from '../../src/errors/ward-error.ts';

test('a username with a zero-width space is refused, naming the character and where it is', (t) => {
  const error = t.throws(() => assertUsername('ad\u200Bmin'), { instanceOf: WardError });
  t.like(error, {
    code: 'invalid_username',
    message:
      '"ad\u200Bmin" is not a valid username: it contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 3',
    exitCode: 2,
  });
});

test('a role name with a bidi control is refused, naming it', (t) => {
  t.like(
    t.throws(() => assertRoleName('admin\u202E')),
    {
      code: 'invalid_role_name',
      message:
        '"admin\u202E" is not a valid role name: it contains U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 6',
    },
  );
});

test('a value that is merely wrong keeps the plain message, one that NFC folds (KELVIN SIGN) too', (t) => {
  t.is(assertUsername('ada.lovelace'), 'ada.lovelace');
  t.is(assertRoleName('sync_agent'), 'sync_agent');
  t.is(t.throws(() => assertUsername('Alice'))?.message, '"Alice" is not a valid username');
  // U+212A KELVIN SIGN is K in NFC: still not lowercase, and refused as such.
  t.is(t.throws(() => assertUsername('\u212Aim'))?.message, '"\u212Aim" is not a valid username');
});
