/**
 * Sealing secrets Ward must read back (two-factor TOTP secrets) so that a copy of the database, a
 * backup or a leaked dump does not hold them: AES-256-GCM with a key derived by HKDF-SHA256 from
 * the deployment's SECRET_KEY, a random 96-bit nonce per seal, and the row it belongs to bound in
 * as associated data (a sealed secret copied onto another user's row does not open).
 *
 * A sealed value is text: `v1.<key id>.<nonce>.<ciphertext and tag>` (base64url). The version
 * names the algorithm and derivation, so a later form can be told apart; the key id (derived from
 * the key, revealing nothing of it) tells "sealed with another SECRET_KEY" from "damaged".
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { WardError } from '../errors/ward-error.ts';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_HINT = 'set SECRET_KEY to a random value of at least 32 characters (`openssl rand -hex 32`)';

export interface SealingKey {
  /** Names the key in sealed values; derived from it, never the key. */
  readonly id: string;
  readonly key: Buffer;
}

const derive = (secret: string, info: string, length: number): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `ward/${info}`, length));

/**
 * The sealing key of SECRET_KEY as `parseSecretKey` checked it, or null when it is unset
 * (two-factor sign-in then cannot be used, which `requireSealingKey` says).
 */
export function sealingKey(secretKey: string | null): SealingKey | null {
  if (secretKey === null) return null;
  return {
    id: derive(secretKey, 'key-id/v1', 6).toString('base64url'),
    key: derive(secretKey, 'seal/totp/v1', 32),
  };
}

export function requireSealingKey(key: SealingKey | null): SealingKey {
  if (key !== null) return key;
  throw new WardError(
    'secret_key_missing',
    'two-factor sign-in needs SECRET_KEY, which seals the two-factor secrets in the database, and it is not set',
    `${KEY_HINT} in <storage>/ward.env or the environment, then restart the backend`,
  );
}

/** Whether `stored` is a sealed value rather than a secret stored before sealing existed. */
export const isSealed = (stored: string): boolean => /^v\d+\./.test(stored);

/** `plaintext` sealed for the row `bound` (such as `base_user_totp:7`). */
export function seal(key: SealingKey, plaintext: string, bound: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(`${VERSION}.${key.id}.${bound}`, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [VERSION, key.id, nonce.toString('base64url'), sealed.toString('base64url')].join('.');
}

/** The plaintext of `stored`, sealed for `bound`; a WardError saying why it cannot be opened. */
export function unseal(key: SealingKey, stored: string, bound: string): string {
  const parts = stored.split('.');
  if (!/^v\d+$/.test(parts[0] ?? ''))
    throw new WardError(
      'secret_not_sealed',
      `a two-factor secret (${bound}) is stored unsealed, as before sealing existed`,
      'restart the backend with SECRET_KEY set: it seals the stored secrets before it serves',
    );
  if (parts[0] !== VERSION)
    throw new WardError(
      'sealed_secret_unreadable',
      `a two-factor secret (${bound}) is sealed in a form (${parts[0]}) this Ward does not read`,
      'run the Ward version that sealed it, or reset the user’s two-factor sign-in',
    );
  if (parts.length !== 4) throw damaged(bound);
  const [, keyId, nonceText, sealedText] = parts as [string, string, string, string];
  if (keyId !== key.id)
    throw new WardError(
      'secret_key_mismatch',
      `a two-factor secret (${bound}) was sealed with another SECRET_KEY than the one set now`,
      'set SECRET_KEY back to the key it was sealed with; if that key is lost, the user signs in with a recovery code and sets two-factor sign-in up again (or an administrator resets it)',
    );
  const nonce = Buffer.from(nonceText, 'base64url');
  const sealed = Buffer.from(sealedText, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(`${VERSION}.${key.id}.${bound}`, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch (error) {
    throw damaged(bound, error);
  }
}

const damaged = (bound: string, cause?: unknown): WardError =>
  new WardError(
    'sealed_secret_damaged',
    `a two-factor secret (${bound}) does not open with SECRET_KEY: it was altered or copied from another row`,
    'reset the user’s two-factor sign-in (an administrator can) and set it up again',
    { cause },
  );
