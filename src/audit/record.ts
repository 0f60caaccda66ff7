/**
 * Appending to the audit trail. A change is recorded inside its own transaction (`acting` in a
 * transaction): a rollback leaves no row, a commit always has its row. What changes nothing (a
 * read, a refusal, a sign-in failure) is recorded in a transaction of its own, grouped with the
 * others waiting at that moment (group commit), and awaited: nothing is answered unrecorded.
 *
 * Chain integrity under concurrency: an append takes the transaction-scoped advisory lock
 * LOCK_KEYS.audit, then reads the last row's hash, inserts its rows and keeps the lock until its
 * transaction ends. So appends take turns in commit order: the next one reads the last hash only
 * once this one has committed (or rolled back, its rows gone), and identity values, drawn while
 * the lock is held, follow chain order. This needs READ COMMITTED (Ward's only isolation level),
 * where each statement sees what committed before it. Holding the lock to commit serialises
 * audited transactions from their append on: record last, just before the transaction ends.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Acting, Actor } from '../db/acting.ts';
import { LOCK_KEYS } from '../db/lock.ts';
import { withConnection } from '../db/pg-connection.ts';
import { actorUserId, chainHash, GENESIS, jsonDetail, type AuditFields, type AuditOutcome } from './chain.ts';

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
  value === null || value === undefined ? null : String(value);

function fieldsOf(event: ActorEvent, at: Date, client: string | null): AuditFields {
  return {
    at,
    actor: event.actor,
    userId: actorUserId(event.actor),
    action: event.action,
    module: event.module ?? null,
    kind: event.kind ?? null,
    recordId: text(event.recordId),
    patientId: text(event.patientId),
    client: event.client ?? client,
    outcome: event.outcome ?? 'ok',
    detail: jsonDetail(event.detail),
  };
}

const HEAD_SQL =
  'select clock_timestamp() as now, (select hash from core_audit_event order by id desc limit 1) as prev';

const INSERT_SQL = `insert into core_audit_event
       (at, actor, user_id, action, module, kind, record_id, patient_id, client, outcome, detail, hash)
     select at, actor, user_id, action, module, kind, record_id, patient_id, client, outcome,
            detail::jsonb, decode(hash, 'hex')
       from unnest($1::timestamptz[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
                   $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
            with ordinality as u(at, actor, user_id, action, module, kind, record_id, patient_id,
                                 client, outcome, detail, hash, ord)
      order by ord`;

/**
 * The INSERT's parameters: one PostgreSQL array per column, so one statement whatever the number
 * of events, each row hashed over the one before, from `head`.
 */
function chained(
  head: { now: Date; prev: Buffer | null },
  events: readonly ActorEvent[],
  client: string | null,
): unknown[][] {
  let prev: Buffer = head.prev ?? GENESIS;
  const columns: unknown[][] = Array.from({ length: 12 }, () => []);
  for (const event of events) {
    const fields = fieldsOf(event, head.now, client);
    prev = chainHash(prev, fields);
    const values = [
      head.now,
      fields.actor,
      fields.userId,
      fields.action,
      fields.module,
      fields.kind,
      fields.recordId,
      fields.patientId,
      fields.client,
      fields.outcome,
      fields.detail === null ? null : JSON.stringify(fields.detail),
      prev.toString('hex'),
    ];
    values.forEach((value, index) => columns[index]!.push(value));
  }
  return columns;
}

/**
 * Appends `events` in `trx`, chained after the last row, in one INSERT; the lock it takes is held
 * until `trx` ends. `client` stands in for an event without its own.
 */
export async function appendAudit(
  trx: Knex.Transaction,
  events: readonly ActorEvent[],
  client: string | null = null,
): Promise<void> {
  if (events.length === 0) return;
  // The lock and the head in one round trip (a batch of an import appends twice): two statements
  // of one simple query, the head's taking its snapshot once the lock is held.
  const results = (await trx.raw(`select pg_advisory_xact_lock(${LOCK_KEYS.audit}); ${HEAD_SQL}`)) as Array<{
    rows: Array<{ now: Date; prev: Buffer | null }>;
  }>;
  // knex's ? placeholders: the same statement with PostgreSQL's numbered ones turned back.
  await trx.raw(
    INSERT_SQL.replace(/\$\d+/g, '?'),
    chained(results[1]!.rows[0]!, events, client) as Knex.Value[],
  );
}

/**
 * Appends `events` on a raw connection inside the transaction it has open (a restore runs on one),
 * so they commit or roll back with it; the lock is held until that transaction ends.
 */
export async function appendOnConnection(
  connection: pg.Client,
  events: readonly ActorEvent[],
  client: string | null = null,
): Promise<void> {
  if (events.length === 0) return;
  const results = (await connection.query(
    `select pg_advisory_xact_lock(${LOCK_KEYS.audit}); ${HEAD_SQL}`,
  )) as unknown as Array<{ rows: Array<{ now: Date; prev: Buffer | null }> }>;
  await connection.query(INSERT_SQL, chained(results[1]!.rows[0]!, events, client));
}

/**
 * Appends `events` in a transaction of their own, in three round trips rather than five: BEGIN,
 * the lock and the head in one simple query (each statement of it sees what committed before it
 * started, so the head is read once the lock is held), then the INSERT, then COMMIT.
 */
async function appendOwnTransaction(knex: Knex, events: readonly ActorEvent[]): Promise<void> {
  await withConnection(knex, 'rollback', async (connection) => {
    const results = (await connection.query(
      `begin; select pg_advisory_xact_lock(${LOCK_KEYS.audit}); ${HEAD_SQL}`,
    )) as unknown as Array<{ rows: Array<{ now: Date; prev: Buffer | null }> }>;
    await connection.query(INSERT_SQL, chained(results[2]!.rows[0]!, events, null));
    await connection.query('commit');
  });
}

interface Waiting {
  events: readonly ActorEvent[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for events outside a transaction: while one append runs, the events that arrive
 * wait and go together in the next, so a busy backend spends one transaction on many reads.
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
        const group = this.#waiting;
        this.#waiting = [];
        try {
          await appendOwnTransaction(
            this.#knex,
            group.flatMap((waiting) => waiting.events),
          );
          for (const waiting of group) waiting.resolve();
        } catch (error) {
          for (const waiting of group) waiting.reject(error);
        }
      }
    } finally {
      this.#running = false;
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
