/**
 * Session ids and API tokens: 32 random bytes behind a prefix that says which table holds them
 * (one indexed lookup, no guessing) and that secret scanners can recognise. Only the SHA-256 of a
 * secret is stored: a copy of the database does not let anyone sign in. SHA-256 rather than a slow
 * KDF because the secret already has 256 bits of entropy; there is nothing to brute-force.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretKind = 'session' | 'token';

const PREFIX: Record<SecretKind, string> = { session: 'ward_s_', token: 'ward_t_' };
const BODY = /^[A-Za-z0-9_-]{43}$/;

export function newSecret(kind: SecretKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

/** The kind of a well-formed secret, or null for anything else (which then never reaches the database). */
export function secretKind(secret: string): SecretKind | null {
  for (const kind of ['session', 'token'] as const)
    if (secret.startsWith(PREFIX[kind]) && BODY.test(secret.slice(PREFIX[kind].length))) return kind;
  return null;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Constant-time string equality; hashing first makes the inputs equal in length whatever they are. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hashSecret(a), hashSecret(b));
}

/** The per-session secret a cookie-authenticated browser must echo in X-CSRF-Token. */
export const newCsrfSecret = (): string => randomBytes(32).toString('base64url');
