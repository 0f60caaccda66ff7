import test from 'ava';
import fc from 'fast-check';
import { isSealed, requireSealingKey, seal, sealingKey, unseal } from '../../src/auth/secret-seal.ts';
import { parseSecretKey } from '../../src/config/backend-settings.ts';
import { WardError } from '../../src/errors/ward-error.ts';

const KEY = sealingKey('k'.repeat(32))!;
const OTHER = sealingKey('o'.repeat(32))!;
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEH';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof WardError ? error.code : `not a WardError: ${String(error)}`;
  }
};

test('a sealed secret opens with its key and row, and holds nothing of the plaintext', (t) => {
  fc.assert(
    fc.property(fc.stringMatching(/^[A-Z2-7]{16,64}$/), fc.nat(), (plaintext, userId) => {
      const bound = `base_user_totp:${userId}`;
      const sealed = seal(KEY, plaintext, bound);
      return isSealed(sealed) && !sealed.includes(plaintext) && unseal(KEY, sealed, bound) === plaintext;
    }),
  );
  t.pass();
});

test('no sealed value is base32 in any case: Ward from before sealing fails on it, never takes a code', (t) => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 32 }),
      fc.stringMatching(/^[A-Z2-7]{16,64}$/),
      fc.nat(),
      (secretKey, plaintext, userId) =>
        !/^[A-Z2-7=]*$/i.test(seal(sealingKey(secretKey)!, plaintext, `base_user_totp:${userId}`)),
    ),
  );
  t.pass();
});

test('each seal draws a new nonce: the same secret seals differently every time', (t) => {
  t.not(seal(KEY, SECRET, 'base_user_totp:1'), seal(KEY, SECRET, 'base_user_totp:1'));
});

test('another SECRET_KEY is named as such, not as damage', (t) => {
  const sealed = seal(KEY, SECRET, 'base_user_totp:1');
  t.is(
    codeOf(() => unseal(OTHER, sealed, 'base_user_totp:1')),
    'secret_key_mismatch',
  );
});

test("a secret copied onto another user's row, or altered, does not open", (t) => {
  const sealed = seal(KEY, SECRET, 'base_user_totp:1');
  t.is(
    codeOf(() => unseal(KEY, sealed, 'base_user_totp:2')),
    'sealed_secret_damaged',
  );
  const last = sealed.at(-2) === 'A' ? 'B' : 'A';
  const altered = `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`;
  t.is(
    codeOf(() => unseal(KEY, altered, 'base_user_totp:1')),
    'sealed_secret_damaged',
  );
  t.is(
    codeOf(() => unseal(KEY, sealed.split('.').slice(0, 3).join('.'), 'base_user_totp:1')),
    'sealed_secret_damaged',
  );
});

test('a plaintext secret or an unknown form is refused with what to do', (t) => {
  t.false(isSealed(SECRET));
  t.is(
    codeOf(() => unseal(KEY, SECRET, 'base_user_totp:1')),
    'secret_not_sealed',
  );
  t.is(
    codeOf(() => unseal(KEY, 'v9.abc.def.ghi', 'base_user_totp:1')),
    'sealed_secret_unreadable',
  );
});

test('no SECRET_KEY: two-factor sign-in is refused with the setting to set', (t) => {
  t.is(sealingKey(null), null);
  const error = t.throws(() => requireSealingKey(null), { instanceOf: WardError });
  t.is(error.code, 'secret_key_missing');
  t.regex(error.message, /SECRET_KEY/);
  t.regex(error.hint, /openssl rand -hex 32/);
});

test('SECRET_KEY shorter than 32 characters is refused; unset or empty is no key', (t) => {
  t.is(parseSecretKey(null), null);
  t.is(parseSecretKey(''), null);
  t.is(parseSecretKey('x'.repeat(32)), 'x'.repeat(32));
  const error = t.throws(() => parseSecretKey('hunter2'), { instanceOf: WardError });
  t.is(error.code, 'invalid_setting');
  t.is(error.message, 'SECRET_KEY is 7 characters long; it needs at least 32');
  t.false(error.message.includes('hunter2'), 'the key itself is never quoted');
});

test('the key id differs between keys and reveals no key material', (t) => {
  t.not(KEY.id, OTHER.id);
  t.false(KEY.id.includes('kkkk'));
  t.is(sealingKey('k'.repeat(32))!.id, KEY.id, 'the same key gives the same id');
});
