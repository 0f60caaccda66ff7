/**
 * Password hashing with scrypt from node:crypto: memory-hard, so a stolen table cannot be brute-forced
 * on GPUs cheaply. The stored form is one PHC-style string holding the parameters, the salt and the
 * hash, so the parameters can be raised later: a login with an old hash re-hashes it (needsRehash).
 * Every hash in the process waits its turn in one queue (hash-limit.ts), so that hashing never
 * takes the whole thread pool from file I/O.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { HASHES_AT_ONCE, hashQueue } from './hash-limit.ts';

export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  ln: number;
  r: number;
  p: number;
}

/** N = 2^15, r = 8: 32 MiB and some 50 ms per hash, OWASP's scrypt baseline. */
export const CURRENT_PARAMS: ScryptParams = { ln: 15, r: 8, p: 1 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** A hash read from the database is trusted only up to this cost, so a tampered row cannot stall the server. */
const MAX_LN = 20;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_BYTES = 1024;

const queue = hashQueue(HASHES_AT_ONCE);

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = {
    N: 2 ** params.ln,
    r: params.r,
    p: params.p,
    // scrypt needs 128·N·r·p bytes; Node's default cap (32 MiB) is just short of that for N=2^15, r=8.
    maxmem: 256 * 2 ** params.ln * params.r * params.p,
  };
  return queue.run(
    () =>
      new Promise((resolve, reject) =>
        scryptCallback(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) =>
          error === null ? resolve(key) : reject(error),
        ),
      ),
  );
}

const b64 = (buffer: Buffer): string => buffer.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scrypt(password, salt, params);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(hash)}`;
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export function parsePasswordHash(stored: string): ParsedHash | null {
  const match = PHC.exec(stored);
  if (match === null) return null;
  const [ln, r, p] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (ln < 1 || ln > MAX_LN || r < 1 || p < 1) return null;
  return {
    params: { ln, r, p },
    salt: Buffer.from(match[4] as string, 'base64'),
    hash: Buffer.from(match[5] as string, 'base64'),
  };
}

/**
 * A login for a user without a usable hash checks against this one, so it costs as much as a real
 * check. Its hash is random bytes, the hash of no password: it needs no hashing of its own.
 */
const DUMMY: ParsedHash = {
  params: CURRENT_PARAMS,
  salt: randomBytes(SALT_BYTES),
  hash: randomBytes(HASH_BYTES),
};

/**
 * True when `password` matches `stored`. A missing or unreadable hash still costs one scrypt, so
 * response times do not tell an attacker which usernames exist.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = parsePasswordHash(stored ?? '');
  const target = parsed ?? DUMMY;
  const candidate = await scrypt(password, target.salt, target.params);
  const equal = candidate.length === target.hash.length && timingSafeEqual(candidate, target.hash);
  return parsed !== null && equal;
}

export function needsRehash(stored: string, params: ScryptParams = CURRENT_PARAMS): boolean {
  const parsed = parsePasswordHash(stored);
  return (
    parsed === null ||
    parsed.params.ln !== params.ln ||
    parsed.params.r !== params.r ||
    parsed.params.p !== params.p
  );
}

export interface PasswordProblem {
  message: string;
  hint: string;
}

/**
 * Why a new password is refused, or null when it is acceptable. Length is what matters (NIST
 * 800-63B), but twelve spaces are no secret, and a control character (a NUL, a tab, an escape)
 * cannot be typed into a sign-in field: it would lock its owner out, or stand for a bug in a script.
 */
export function passwordProblem(password: string): PasswordProblem | null {
  if (/\p{Cc}/u.test(password))
    return {
      message: 'the password holds a control character (such as NUL, tab or escape)',
      hint: 'choose a passphrase of characters you can type: letters, digits, punctuation and spaces',
    };
  if ([...password].length < PASSWORD_MIN_LENGTH)
    return {
      message: `the password is too short: use at least ${PASSWORD_MIN_LENGTH} characters`,
      hint: 'choose a longer passphrase',
    };
  if (/^\p{White_Space}*$/u.test(password))
    return {
      message: 'the password is only spaces',
      hint: 'choose a passphrase with letters, digits or punctuation in it',
    };
  if (Buffer.byteLength(password) > PASSWORD_MAX_BYTES)
    return {
      message: `the password is too long: at most ${PASSWORD_MAX_BYTES} bytes`,
      hint: 'choose a shorter passphrase',
    };
  return null;
}

/** A password for the first admin: 24 URL-safe characters (144 bits). */
export const randomPassword = (): string => randomBytes(18).toString('base64url');
