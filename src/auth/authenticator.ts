/**
 * Secret in, principal out: the cache first, then one query. A session nobody used for the idle
 * time is refused like an expired one. Also records when a credential was last used, off the
 * request's path: a session every SESSION_TOUCH_MS at most, so that other backends see it in use,
 * a token once a minute.
 */
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { loadCredential, recordUse } from './credential-store.ts';
import type { PermissionMap } from './permissions.ts';
import { isExpired, toPrincipal, type Principal } from './principal.ts';
import type { PrincipalCache } from './principal-cache.ts';
import { SESSION_TTL_MS } from './sessions.ts';
import { secretKey, secretKind } from './tokens.ts';
import type { TwoFactorPolicy } from './two-factor.ts';

const TOKEN_TOUCH_MS = 60_000;
/** How far behind another backend's view of a session's last request may be. */
export const SESSION_TOUCH_MS = 15_000;
const MAX_ENTRIES = 10_000;

export interface Authenticator {
  /**
   * A cached principal comes back at once, without a promise: most requests are answered from the
   * cache, and each promise costs them a turn of the microtask queue and an allocation.
   */
  authenticate(secret: string): Principal | null | Promise<Principal | null>;
  /** Drops a credential this process just ended; the trigger's NOTIFY would, a moment later. */
  forget(secret: string): void;
  /** A session without a request for this long ends. */
  readonly idleMs: number;
}

/**
 * Whether a session went unused for `idleMs` by `now`: its last request is the later of the one
 * the database has (from any backend) and the one this process saw.
 */
export function idleExpired(
  lastSeenAt: number,
  seenHere: number | undefined,
  now: number,
  idleMs: number,
): boolean {
  return now - Math.max(lastSeenAt, seenHere ?? -Infinity) >= idleMs;
}

export function createAuthenticator(deps: {
  knex: Knex;
  map: PermissionMap;
  cache: PrincipalCache;
  logger: Logger;
  /** Default: the absolute lifetime, so only that counts. */
  idleMs?: number;
  /** Who must have a second factor (WARD_REQUIRE_2FA). Default: nobody. */
  twoFactorPolicy?: TwoFactorPolicy;
  now?: () => number;
}): Authenticator {
  const { knex, map, cache, logger } = deps;
  const now = deps.now ?? Date.now;
  const idleMs = deps.idleMs ?? SESSION_TTL_MS;
  /** When each credential's use was last written, by secretKey. */
  const touched = new Map<string, number>();
  /** Each session's last request in this process, by secretKey. */
  const seen = new Map<string, number>();

  const bounded = (entries: Map<string, number>) => {
    // Losing this memory costs at most an early idle end (by SESSION_TOUCH_MS) or one write more.
    if (entries.size >= MAX_ENTRIES) entries.clear();
  };

  /** `key`: the secret's SHA-256 in base64 (secretKey), as the cache keys it. */
  const touch = (key: string, kind: 'session' | 'token', at: number) => {
    if (kind === 'session') {
      bounded(seen);
      seen.set(key, at);
    }
    if (at - (touched.get(key) ?? 0) < (kind === 'session' ? SESSION_TOUCH_MS : TOKEN_TOUCH_MS)) return;
    bounded(touched);
    touched.set(key, at);
    recordUse(knex, kind, Buffer.from(key, 'base64'), new Date(at)).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not record when a credential was last used'),
    );
  };

  const idle = (principal: Principal, key: string, at: number) =>
    principal.credential.kind === 'session' &&
    idleExpired(principal.credential.lastSeenAt.getTime(), seen.get(key), at, idleMs);

  const load = async (key: string, kind: 'session' | 'token', at: number) => {
    const generation = cache.generation;
    const stored = await loadCredential(knex, kind, Buffer.from(key, 'base64'));
    const principal = toPrincipal(stored, map, at, deps.twoFactorPolicy);
    if (principal === null || idle(principal, key, at)) return null;
    cache.set(key, principal, generation);
    return principal;
  };

  return {
    idleMs,
    forget(secret) {
      cache.delete(secretKey(secret));
    },
    authenticate(secret) {
      const kind = secretKind(secret);
      if (kind === null) return null;
      const key = secretKey(secret);
      const at = now();
      const cached = cache.get(key);
      // A cached session that looks idle is read again: another backend may have served it since.
      const fresh =
        cached === undefined || isExpired(cached.credential, at) || idle(cached, key, at) ? null : cached;
      if (fresh !== null) {
        touch(key, kind, at);
        return fresh;
      }
      if (cached !== undefined) cache.delete(key);
      return load(key, kind, at).then((principal) => {
        if (principal !== null) touch(key, kind, at);
        return principal;
      });
    },
  };
}
