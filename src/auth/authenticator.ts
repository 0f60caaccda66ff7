/**
 * Secret in, principal out: the cache first, then one query. Also records when a credential was
 * last used, at most once a minute per credential, off the request's path.
 */
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { loadCredential, recordUse } from './credential-store.ts';
import type { PermissionMap } from './permissions.ts';
import { isExpired, toPrincipal, type Principal } from './principal.ts';
import type { PrincipalCache } from './principal-cache.ts';
import { secretKey, secretKind } from './tokens.ts';

const TOUCH_EVERY_MS = 60_000;
const MAX_TOUCH_ENTRIES = 10_000;

export interface Authenticator {
  authenticate(secret: string): Promise<Principal | null>;
  /** Drops a credential this process just ended; the trigger's NOTIFY would, a moment later. */
  forget(secret: string): void;
}

export function createAuthenticator(deps: {
  knex: Knex;
  map: PermissionMap;
  cache: PrincipalCache;
  logger: Logger;
  now?: () => number;
}): Authenticator {
  const { knex, map, cache, logger } = deps;
  const now = deps.now ?? Date.now;
  const touched = new Map<string, number>();

  /** `key`: the secret's SHA-256 in base64 (secretKey), as the cache keys it. */
  const touch = (key: string, kind: 'session' | 'token', at: number) => {
    if (at - (touched.get(key) ?? 0) < TOUCH_EVERY_MS) return;
    if (touched.size >= MAX_TOUCH_ENTRIES) touched.clear();
    touched.set(key, at);
    recordUse(knex, kind, Buffer.from(key, 'base64')).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not record when a credential was last used'),
    );
  };

  return {
    forget(secret) {
      cache.delete(secretKey(secret));
    },
    async authenticate(secret) {
      const kind = secretKind(secret);
      if (kind === null) return null;
      const key = secretKey(secret);
      const at = now();
      const cached = cache.get(key);
      if (cached !== undefined) {
        if (isExpired(cached.credential, at)) {
          cache.delete(key);
          return null;
        }
        touch(key, kind, at);
        return cached;
      }
      const generation = cache.generation;
      const principal = toPrincipal(await loadCredential(knex, kind, Buffer.from(key, 'base64')), map, at);
      if (principal === null) return null;
      cache.set(key, principal, generation);
      touch(key, kind, at);
      return principal;
    },
  };
}
