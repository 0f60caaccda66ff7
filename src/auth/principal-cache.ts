/**
 * Principals by credential hash, so a permission-checked request costs no database round trip.
 * Correctness rests on invalidation, not on expiry: the `ward_auth` NOTIFY triggers (base module)
 * drop a user's entries on any change to their roles, sessions or tokens, whichever process makes
 * it. While the listener is down the cache is disabled and every request reads the database. The
 * TTL is only a backstop.
 *
 * A load that started before an invalidation must not store what it read: every invalidation bumps
 * `generation`, and `set` ignores a value read under an older generation.
 */
import type { Principal } from './principal.ts';

export interface PrincipalCacheOptions {
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  principal: Principal;
  storedAt: number;
}

export class PrincipalCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #generation = 0;
  #enabled = false;

  constructor(options: PrincipalCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Principal | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() - entry.storedAt >= this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  /** Stores `principal` unless caching is off or something was invalidated since `generation` was read. */
  set(key: string, principal: Principal, generation: number): void {
    if (!this.#enabled || generation !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { principal, storedAt: this.#now() });
  }

  delete(key: string): void {
    this.#generation++;
    this.#entries.delete(key);
  }

  invalidateUser(userId: number): void {
    this.#generation++;
    for (const [key, entry] of this.#entries)
      if (entry.principal.userId === userId) this.#entries.delete(key);
  }

  invalidateAll(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** Only while change notifications arrive may anything be kept. */
  setEnabled(enabled: boolean): void {
    this.#enabled = enabled;
    this.invalidateAll();
  }

  /** Applies a `ward_auth` notification payload: `user:<id>` or `*` (anything unreadable counts as `*`). */
  applyNotification(payload: string): void {
    const match = /^user:(\d+)$/.exec(payload);
    if (match === null) this.invalidateAll();
    else this.invalidateUser(Number(match[1]));
  }
}
