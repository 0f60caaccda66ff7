/**
 * knex, loaded when first needed. knex with lodash is some 330 of the files a backend start would
 * load (bench/restart.ts), more than all of Ward's own code, yet a start with nothing to migrate
 * needs none of it: its checks are a few plain queries (`StartDb.sql`). The backend hands out
 * `knex` (a stand-in) to what it builds before serving, which keeps it for requests; the app waits
 * for `load()` before any request but `/health` (app.ts), so the stand-in is never used unloaded.
 */
import type { Knex } from 'knex';
import type { Queryable } from './pg-client.ts';

export interface LazyKnex {
  /** Behaves as the loaded knex; throws if used before `load()` has resolved. */
  readonly knex: Knex;
  /** Loads and opens knex (once) and resolves with it. */
  load(): Promise<Knex>;
  /** Whether `load()` has resolved. */
  loaded(): boolean;
  /** Destroys knex's pool, waiting for a load under way; does nothing if it was never loaded. */
  destroy(): Promise<void>;
}

export function lazyKnex(open: () => Promise<Knex>): LazyKnex {
  let real: Knex | null = null;
  let loading: Promise<Knex> | null = null;
  const bound = new WeakMap<object, unknown>();
  const current = (): Knex => {
    if (real !== null) return real;
    throw new Error('knex was used before it was loaded: await load() first (src/db/lazy-knex.ts)');
  };
  // A function target, so that `knex('table')` can be forwarded as well as `knex.raw(...)`.
  const knex = new Proxy(function unloaded() {}, {
    apply: (_target, _this, args: unknown[]) =>
      (current() as unknown as (...a: unknown[]) => unknown)(...args),
    get: (_target, property) => {
      const value: unknown = Reflect.get(current(), property);
      if (typeof value !== 'function') return value;
      // Bound once per method, not on every request that calls it.
      let method = bound.get(value);
      if (method === undefined)
        bound.set(value, (method = (value as (...a: unknown[]) => unknown).bind(real)));
      return method;
    },
    has: (_target, property) => Reflect.has(current(), property),
  }) as unknown as Knex;
  const load = () =>
    (loading ??= open().then(
      (opened) => (real = opened),
      (error: unknown) => {
        // A failed load may be tried again by the next caller (the database may be back).
        loading = null;
        throw error;
      },
    ));
  return {
    knex,
    load,
    loaded: () => real !== null,
    async destroy() {
      const opened = await loading?.catch(() => null);
      await opened?.destroy();
    },
  };
}

/**
 * What the start-up checks query with: plain SQL on a pg pool before knex is loaded, and knex
 * when a change (a migration, a plan to apply, a first admin) needs its query builder.
 */
export interface StartDb {
  sql: Queryable;
  knex(): Promise<Knex>;
}

/** A loaded knex serves both (the CLI and tests, which hold one already). */
export function startDb(db: Knex | StartDb): StartDb {
  if (typeof db === 'function') return { sql: db, knex: async () => db };
  return db;
}
