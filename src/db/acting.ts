/**
 * Who acts, and the one place where a transaction is opened on someone's behalf. Every write a
 * module makes (a route, a command, a hook, a seed, a background job) runs in a transaction that
 * first records its actor with `set_config('ward.actor', <actor>, true)`: local to the
 * transaction, so a database trigger reads it with `current_setting('ward.actor', true)` and
 * attributes the row, whichever path wrote it. An audit trail hooks in here.
 *
 * Actors, as text (what `ward.actor` holds):
 * - `user:<id>:session:<ref>`: a signed-in user through a browser session (`ref`: the first 16
 *   hex digits of the session's stored hash, never its secret);
 * - `user:<id>:token:<id>`: a user through an API token;
 * - `user:<id>:sign-in`: a user signing in, proven by their password (and second factor) but
 *   with no session yet: the challenge, the second-factor counts and the new session itself;
 * - `cli:<operating-system user>`: an operator's `ward` command;
 * - `job:<id>`: background work a module runs on its own;
 * - `system`: Ward itself (migrations, seeds and hooks of a restart).
 */
import type { Knex } from 'knex';

/** What a write is attributed to; see the forms above. */
export type Actor = string;

export const SYSTEM_ACTOR: Actor = 'system';

export const cliActor = (osUser: string): Actor => `cli:${osUser}`;

export const jobActor = (id: string | number): Actor => `job:${id}`;

export type UserCredentialRef = { kind: 'session'; ref: string } | { kind: 'token'; id: number };

export const userActor = (userId: number, via: UserCredentialRef): Actor =>
  via.kind === 'session' ? `user:${userId}:session:${via.ref}` : `user:${userId}:token:${via.id}`;

/** A user signing in; it starts `user:<id>:` as the user's other acts do, so one prefix finds them all. */
export const signInActor = (userId: number): Actor => `user:${userId}:sign-in`;

/**
 * The acting context: who acts, and the transaction their writes go in. Module APIs take one as
 * their first argument, so a write made through another module is attributed to the same actor
 * and commits (or rolls back) with its caller's.
 */
export interface Acting {
  /** Who acts (`user:7:token:3`, `cli:alice`, `job:migration_import:42`, `system`). */
  readonly actor: Actor;
  /** What to read with: the open transaction inside `transaction(…)` (and in a hook), else the pool. */
  readonly knex: Knex;
  /** Whether `knex` is a transaction this context writes in. */
  readonly inTransaction: boolean;
  /**
   * Runs `work` in a transaction whose `ward.actor` is this actor, committed when `work` resolves
   * and rolled back when it throws. Inside a transaction already (nested calls, a hook's step),
   * `work` joins that one: what it writes commits with the caller's writes. `work` receives the
   * transaction and the acting context bound to it, to hand on to other modules' APIs.
   */
  transaction<T>(work: (trx: Knex.Transaction, acting: Acting) => Promise<T>): Promise<T>;
}

/** Records the actor for the rest of `trx` (and only it). */
export async function setActor(trx: Knex.Transaction, actor: Actor): Promise<void> {
  await trx.raw(`select set_config('ward.actor', ?, true)`, [actor]);
}

/** Opens a transaction on behalf of `actor`: every transaction of an acting context starts here. */
export function actingTransaction<T>(
  knex: Knex,
  actor: Actor,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return knex.transaction(async (trx) => {
    await setActor(trx, actor);
    return work(trx);
  });
}

/** The acting context of `actor` on the pool `knex`: each `transaction(…)` opens its own. */
export function acting(knex: Knex, actor: Actor): Acting {
  return Object.freeze({
    actor,
    knex,
    inTransaction: false,
    transaction: <T>(work: (trx: Knex.Transaction, bound: Acting) => Promise<T>) =>
      actingTransaction(knex, actor, (trx) => work(trx, actingIn(trx, actor))),
  });
}

/** The acting context inside `trx`, a transaction whose `ward.actor` is `actor` already. */
export function actingIn(trx: Knex.Transaction, actor: Actor): Acting {
  const self: Acting = Object.freeze({
    actor,
    knex: trx,
    inTransaction: true,
    transaction: <T>(work: (inner: Knex.Transaction, bound: Acting) => Promise<T>) => work(trx, self),
  });
  return self;
}
