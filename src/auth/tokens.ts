/**
 * Session ids and API tokens: 32 random bytes behind a prefix that says which table holds them
 * (one indexed lookup, no guessing) and that secret scanners can recognise. Only the SHA-256 of a
 * secret is stored: a copy of the database does not let anyone sign in. SHA-256 rather than a slow
 * KDF because the secret already has 256 bits of entropy; there is nothing to brute-force.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretKind = 'session' | 'token';

const PREFIX: Record<SecretKind, string> = { session: 'ward_s_', token: 'ward_t_' };
const BODY = '[A-Za-z0-9_-]{43}';
/** Each kind's whole secret, tested without slicing off the prefix: this runs on every authenticated request. */
const WHOLE: Record<SecretKind, RegExp> = {
  session: new RegExp(`^${PREFIX.session}${BODY}$`),
  token: new RegExp(`^${PREFIX.token}${BODY}$`),
};

export function newSecret(kind: SecretKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

/** The kind of a well-formed secret, or null for anything else (which then never reaches the database). */
export function secretKind(secret: string): SecretKind | null {
  if (WHOLE.token.test(secret)) return 'token';
  if (WHOLE.session.test(secret)) return 'session';
  return null;
}

/**
 * The SHA-256 of a secret in base64: the principal cache's key. Computed on every authenticated
 * request, so with the one-shot hash, which is several times faster than a Hash object for inputs
 * this short.
 */
export function secretKey(secret: string): string {
  return hash('sha256', secret, 'base64');
}

/** The SHA-256 of a secret as stored in the database. */
export function hashSecret(secret: string): Buffer {
  return Buffer.from(secretKey(secret), 'base64');
}

/** Constant-time string equality; hashing first makes the inputs equal in length whatever they are. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hashSecret(a), hashSecret(b));
}

/** The per-session secret a cookie-authenticated browser must echo in X-CSRF-Token. */
export const newCsrfSecret = (): string => randomBytes(32).toString('base64url');
