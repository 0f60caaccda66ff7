/**
 * Appending to the audit trail. A change is recorded inside its own transaction (`acting` in a
 * transaction): a rollback leaves no row, a commit always has its row. What changes nothing (a
 * read, a refusal, a sign-in failure) is recorded in a transaction of its own, grouped with the
 * others waiting at that moment (group commit), and awaited: nothing is answered unrecorded.
 *
 * Every append is one statement, `core_audit_append` (see its migration): it takes the
 * transaction-scoped advisory lock LOCK_KEYS.audit, reads the last row's hash and the clock, then
 * hashes and inserts the rows, and the lock is kept until the transaction ends. So appends take
 * turns in commit order: the next one reads the last hash only once this one has committed (or
 * rolled back, its rows gone), and identity values, drawn while the lock is held, follow chain
 * order. This needs READ COMMITTED (Ward's only isolation level). Holding the lock to commit
 * serialises audited transactions from their append on: record last, just before the transaction
 * ends. Outside a transaction the statement is its own transaction: a group of reads costs one
 * round trip and one commit.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Acting, Actor } from '../db/acting.ts';
import { withConnection } from '../db/pg-connection.ts';
import {
  actorUserId,
  canonicalParts,
  jsonDetail,
  storableText,
  type AuditFields,
  type AuditOutcome,
} from './chain.ts';

/** What a caller records: the actor, time and hash are the writer's business. */
export interface AuditEvent {
  /** Dotted verb: `record.read`, `import.execute`, `auth.sign_in`… */
  action: string;
  /** The module owning the record, null (or absent) for core. */
  module?: string | null;
  /** Record kind: `patient`, `appointment`, `import_job`, `user`… */
  kind?: string | null;
  recordId?: string | number | null;
  /** The patient the record belongs to, when there is one. */
  patientId?: string | number | null;
  /**
   * The patients whose records a list showed or a batch wrote, so that every access to one of them
   * finds the row. Absent or empty: none; `patientId` among them is left out (it is the row's own).
   */
  patientIds?: ReadonlyArray<string | number> | null;
  /** The client's address; the acting context's when absent. */
  client?: string | null;
  /** `ok` when absent. */
  outcome?: AuditOutcome;
  /** JSON: changes as `{field: [before, after]}`, the ids a list showed, a plan, a refusal code. */
  detail?: unknown;
}

/** An event with its actor: what `appendAudit` writes. */
export interface ActorEvent extends AuditEvent {
  actor: Actor;
}

const text = (value: string | number | null | undefined): string | null =>
  value === null || value === undefined ? null : storableText(String(value));

/** Each patient once, in the order first given, but the row's own patient; null for none. */
function patientList(
  ids: ReadonlyArray<string | number> | null | undefined,
  patientId: string | null,
): string[] | null {
  // Most events (a read, a change of one record) name no list: no set to build for them.
  if (ids === null || ids === undefined || ids.length === 0) return null;
  const others = [...new Set(ids.map(String))].filter((id) => id !== patientId);
  return others.length === 0 ? null : others;
}

function fieldsOf(event: ActorEvent, client: string | null): Omit<AuditFields, 'at'> {
  const patientId = text(event.patientId);
  return {
    actor: storableText(event.actor),
    userId: actorUserId(event.actor),
    action: storableText(event.action),
    module: text(event.module),
    kind: text(event.kind),
    recordId: text(event.recordId),
    patientId,
    patientIds: patientList(
      event.patientIds?.map((id) => storableText(String(id))),
      patientId,
    ),
    client: text(event.client ?? client),
    outcome: event.outcome ?? 'ok',
    detail: jsonDetail(event.detail),
  };
}

/** Prepared once per connection on the group-commit path (pg names it so). */
const STATEMENT = 'ward_audit_append_texts';

const APPEND_SQL = 'select core_audit_append($1::text)';

/**
 * The statement's one parameter: each event's canonical text without its time (the part before
 * the time, then the part after), one per line; the database reads the columns back from these
 * texts and adds the time and the hashes (see the function's migration). A canonical text is JSON
 * without whitespace, so it never holds a line break, and one text needs no escaping: an audited
 * read spent more on serialising one PostgreSQL array per column than on the rest of its record.
 */
function textsOf(events: readonly ActorEvent[], client: string | null): string {
  return events
    .map((event) => {
      const { head, tail } = canonicalParts(fieldsOf(event, client));
      return head + tail;
    })
    .join('\n');
}

/**
 * Appends `events` in `trx`, chained after the last row, in one statement; the lock it takes is
 * held until `trx` ends. `client` stands in for an event without its own.
 */
export async function appendAudit(
  trx: Knex.Transaction,
  events: readonly ActorEvent[],
  client: string | null = null,
): Promise<void> {
  if (events.length === 0) return;
  // knex's ? placeholders: the same statement with PostgreSQL's numbered one turned back.
  await trx.raw(APPEND_SQL.replace(/\$\d+/g, '?'), [textsOf(events, client)]);
}

/**
 * Appends `events` on a raw connection: inside the transaction it has open (a restore runs on
 * one), they commit or roll back with it and the lock is held until it ends; with none open, the
 * statement is its own transaction.
 */
export async function appendOnConnection(
  connection: pg.Client,
  events: readonly ActorEvent[],
  client: string | null = null,
): Promise<void> {
  if (events.length === 0) return;
  await connection.query({ name: STATEMENT, text: APPEND_SQL, values: [textsOf(events, client)] });
}

interface Waiting {
  events: readonly ActorEvent[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for events outside a transaction: while one append runs, the events that arrive
 * wait and go together in the next, so a busy backend spends one transaction on many reads. The
 * connection is kept for as long as groups keep coming: under load, the next group does not queue
 * for the pool behind the very reads it records.
 */
class GroupCommit {
  readonly #knex: Knex;
  #waiting: Waiting[] = [];
  #running = false;

  constructor(knex: Knex) {
    this.#knex = knex;
  }

  append(events: readonly ActorEvent[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ events, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#waiting.length > 0) {
        let group: Waiting[] = [];
        try {
          await withConnection(this.#knex, 'rollback', async (connection) => {
            while (this.#waiting.length > 0) {
              group = this.#waiting;
              this.#waiting = [];
              await appendOnConnection(
                connection,
                group.flatMap((waiting) => waiting.events),
              );
              for (const waiting of group) waiting.resolve();
              group = [];
            }
          });
        } catch (error) {
          if (group.length > 1) await this.#oneByOne(group);
          // When no connection came, every event waiting for one fails with it.
          else
            for (const waiting of group.length > 0 ? group : this.#waiting.splice(0)) waiting.reject(error);
        }
      }
    } finally {
      this.#running = false;
    }
  }

  /** A failed group again, one request at a time: one bad event fails its own request only. */
  async #oneByOne(group: readonly Waiting[]): Promise<void> {
    for (const waiting of group)
      try {
        await withConnection(this.#knex, 'rollback', (connection) =>
          appendOnConnection(connection, waiting.events),
        );
        waiting.resolve();
      } catch (error) {
        waiting.reject(error);
      }
  }
}

const groups = new WeakMap<Knex, GroupCommit>();

/** Appends `events` outside any transaction of the caller's, grouped with others on `knex`. */
export function appendAlone(knex: Knex, events: readonly ActorEvent[]): Promise<void> {
  if (events.length === 0) return Promise.resolve();
  let group = groups.get(knex);
  if (group === undefined) groups.set(knex, (group = new GroupCommit(knex)));
  return group.append(events);
}

/**
 * Records `events` on behalf of `acting`: in its transaction when it has one (they commit or roll
 * back with it), else on their own (awaited).
 */
export function recordAudit(acting: Acting, events: AuditEvent | readonly AuditEvent[]): Promise<void> {
  const list = (Array.isArray(events) ? events : [events]) as readonly AuditEvent[];
  const withActor = list.map((event) => ({
    ...event,
    actor: acting.actor,
    client: event.client ?? acting.client,
  }));
  return acting.inTransaction
    ? appendAudit(acting.knex as Knex.Transaction, withActor)
    : appendAlone(acting.knex, withActor);
}

/** Who a core write (users, tokens, sessions) is recorded for: an acting context's actor and client. */
export interface By {
  actor: Actor;
  client: string | null;
}

/** Ward itself: what core writes are recorded as when no one else is named (seeds, tests). */
export const SYSTEM_BY: By = { actor: 'system', client: null };

/** Appends `events` as `by` in `trx`. */
export function appendBy(trx: Knex.Transaction, by: By, events: readonly AuditEvent[]): Promise<void> {
  return appendAudit(
    trx,
    events.map((event) => ({ ...event, actor: by.actor })),
    by.client,
  );
}
