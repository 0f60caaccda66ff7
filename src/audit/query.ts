/**
 * Reading the audit trail, as pure functions: the filters a reader may give (checked once, for the
 * CLI and the API alike), the SQL that answers them, and the keyset cursor that pages through the
 * answer newest first. Pages are keyed on `id` (the chain order) and never on an offset, so the
 * thousandth page of a patient's accesses costs what the first does: the partial indexes on
 * `(patient_id, id desc)` and `(user_id, id desc)` hand rows over already in order.
 */
import { WardError } from '../errors/ward-error.ts';

/** What to show; every filter given must hold. */
export interface AuditFilter {
  /** The patient the records belong to (the patients module's id, as text). */
  patientId?: string;
  /** Everything this user did, through any session or token. */
  userId?: number;
  /** An actor (`cli:alice`, `job:42`, `system`), or the start of one up to a colon (`user:7`). */
  actor?: string;
  /** An action (`record.read`), or a family of them (`record`: every `record.…`). */
  action?: string;
  /** At or after. */
  since?: Date;
  /** Before. */
  until?: Date;
}

export interface AuditPageRequest {
  filter: AuditFilter;
  /** Only rows older than this id (the cursor of the page before); null for the newest. */
  before: string | null;
  limit: number;
}

export interface SqlQuery {
  sql: string;
  bindings: Array<string | number>;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

const MAX_TEXT = 200;
const ID = /^[1-9]\d{0,18}$/;
const MAX_ID = 2n ** 63n - 1n;
const ACTION = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
const ACTOR = /^[a-z]+(:[^\s:]+)*$/;
/** A date, or a date and time with its offset: a time without one would mean a different instant on each machine. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export const COLUMNS = [
  'id',
  'at',
  'actor',
  'user_id',
  'action',
  'module',
  'kind',
  'record_id',
  'patient_id',
  'patient_ids',
  'client',
  'outcome',
  'detail',
  'hash',
] as const;

/** One row as PostgreSQL hands it back (`id` as text: a bigint). */
export interface AuditRow {
  id: string;
  at: Date;
  actor: string;
  user_id: number | null;
  action: string;
  module: string | null;
  kind: string | null;
  record_id: string | null;
  patient_id: string | null;
  patient_ids: string[] | null;
  client: string | null;
  outcome: string;
  detail: unknown;
  hash: Buffer;
}

/** A bad filter: `parameter` names the flag or query parameter, so each side says it in its own words. */
export class AuditFilterError extends WardError {
  readonly parameter: string;

  constructor(parameter: string, problem: string, hint: string) {
    super('invalid_audit_filter', `${parameter} ${problem}`, hint, { exitCode: 2 });
    this.name = 'AuditFilterError';
    this.parameter = parameter;
  }
}

/** Text as readers type it: filters other than these, and empty values, are refused by the edges. */
export interface AuditFilterInput {
  patient?: string;
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
}

function text(parameter: string, value: string): string {
  if (value === '' || value.length > MAX_TEXT)
    throw new AuditFilterError(
      parameter,
      `must be 1 to ${MAX_TEXT} characters`,
      `give a value, or leave ${parameter} out`,
    );
  return value;
}

/** An ISO 8601 instant: `2026-11-27` (midnight UTC) or `2026-11-27T09:30:00Z` / `…+01:00`. */
export function parseInstant(parameter: string, value: string): Date {
  const match = ISO.exec(value);
  const date = match === null ? null : new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  // Date rolls 2026-02-30 over to March; the fields must survive the round trip to be a real date.
  const real =
    match !== null &&
    date !== null &&
    !Number.isNaN(date.getTime()) &&
    Number(match[2]) >= 1 &&
    Number(match[2]) <= 12 &&
    Number(match[3]) >= 1 &&
    Number(match[3]) <= new Date(Date.UTC(Number(match[1]), Number(match[2]), 0)).getUTCDate() &&
    (match[4] === undefined || Number(match[4]) <= 23) &&
    (match[5] === undefined || Number(match[5]) <= 59) &&
    (match[6] === undefined || Number(match[6]) <= 59);
  if (!real)
    throw new AuditFilterError(
      parameter,
      `is not an ISO 8601 date or date-time with an offset: ${JSON.stringify(value)}`,
      'write it like 2026-11-27 (midnight UTC) or 2026-11-27T09:30:00Z or 2026-11-27T10:30:00+01:00',
    );
  return date;
}

/** Checks what a reader typed; throws an AuditFilterError naming the first bad value. */
export function parseFilter(input: AuditFilterInput): AuditFilter {
  const filter: AuditFilter = {};
  if (input.patient !== undefined) filter.patientId = text('patient', input.patient);
  if (input.actor !== undefined) {
    if (!ACTOR.test(text('actor', input.actor)))
      throw new AuditFilterError(
        'actor',
        `is not an actor: ${JSON.stringify(input.actor)}`,
        'give one such as user:7, cli:alice, job:42, system or anonymous',
      );
    filter.actor = input.actor;
  }
  if (input.action !== undefined) {
    if (!ACTION.test(text('action', input.action)))
      throw new AuditFilterError(
        'action',
        `is not an action: ${JSON.stringify(input.action)}`,
        'give one such as record.read, or a family such as record',
      );
    filter.action = input.action;
  }
  if (input.since !== undefined) filter.since = parseInstant('since', input.since);
  if (input.until !== undefined) filter.until = parseInstant('until', input.until);
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until)
    throw new AuditFilterError(
      'until',
      `(${input.until}) is not after since (${input.since})`,
      'give an until later than since',
    );
  return filter;
}

export function parseLimit(parameter: string, value: string | undefined, max = MAX_LIMIT): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= max))
    throw new AuditFilterError(
      parameter,
      `must be an integer from 1 to ${max}, not ${JSON.stringify(value)}`,
      `give a number of rows from 1 to ${max}`,
    );
  return limit;
}

/** The cursor of the page after one that ended with row `id`: opaque to clients. */
export const encodeCursor = (id: string): string => Buffer.from(`audit:${id}`).toString('base64url');

/** The id a cursor of `encodeCursor` carries; an AuditFilterError for anything else. */
export function decodeCursor(cursor: string): string {
  const decoded = /^[A-Za-z0-9_-]{1,64}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : '';
  const id = decoded.startsWith('audit:') ? decoded.slice('audit:'.length) : '';
  if (!ID.test(id) || BigInt(id) > MAX_ID)
    throw new AuditFilterError(
      'cursor',
      'is not a cursor this list gave out',
      'start again from the first page, without cursor',
    );
  return id;
}

/** `like` pattern text for a literal prefix. */
const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The page's SQL: newest first, one row more than `limit` so the caller knows whether another
 * page follows. Every value is a binding; the SQL text depends only on which filters are given.
 *
 * A patient's page joins two ordered reads: the rows of one record of theirs (`patient_id`, whose
 * index hands them over newest first, so only a page is read) and the lists and batches that
 * showed them among others (`patient_ids`, through its GIN index: only those rows, sorted). One
 * `patient_id = … or patient_ids @> …` would leave the planner to guess between the two indexes
 * and a walk of the whole trail by id.
 */
export function pageQuery(request: AuditPageRequest): SqlQuery {
  const { filter } = request;
  const bindings: Array<string | number> = [];
  const bind = (value: string | number) => {
    bindings.push(value);
    return '?';
  };
  const common = (): string[] => {
    const where: string[] = [];
    if (filter.userId !== undefined) where.push(`user_id = ${bind(filter.userId)}`);
    if (filter.actor !== undefined)
      where.push(`(actor = ${bind(filter.actor)} or actor like ${bind(`${escapeLike(filter.actor)}:%`)})`);
    if (filter.action !== undefined) {
      where.push(
        filter.action.includes('.')
          ? `action = ${bind(filter.action)}`
          : `action like ${bind(`${escapeLike(filter.action)}.%`)}`,
      );
      // The action index leaves reads out (they are most of the trail, found newest first by id):
      // saying so lets PostgreSQL use it for every other action. Bound like every value here: the
      // pages are unnamed statements, planned with their values, which proves the index's predicate.
      if (filter.action !== 'record.read' && filter.action !== 'record')
        where.push(`action <> ${bind('record.read')}`);
    }
    if (filter.since !== undefined) where.push(`at >= ${bind(filter.since.toISOString())}`);
    if (filter.until !== undefined) where.push(`at < ${bind(filter.until.toISOString())}`);
    if (request.before !== null) where.push(`id < ${bind(request.before)}`);
    return where;
  };
  const select = (where: string[]) =>
    `select ${COLUMNS.join(', ')} from core_audit_event` +
    (where.length === 0 ? '' : ` where ${where.join(' and ')}`) +
    ` order by id desc limit ${bind(request.limit + 1)}`;
  if (filter.patientId === undefined) return { sql: select(common()), bindings };
  const own = select([`patient_id = ${bind(filter.patientId)}`, ...common()]);
  // A row naming the patient in both columns is already among `own`.
  const listed = select([
    `patient_ids @> array[${bind(filter.patientId)}]::text[]`,
    `patient_id is distinct from ${bind(filter.patientId)}`,
    ...common(),
  ]);
  const sql = `select * from ((${own}) union all (${listed})) as page order by id desc limit ${bind(request.limit + 1)}`;
  return { sql, bindings };
}

export interface AuditPage<T> {
  items: T[];
  /** For the next (older) page; null on the last. */
  nextCursor: string | null;
}

/** Cuts the extra row `pageQuery` asked for into the cursor of the next page. */
export function toPage<T>(
  rows: readonly AuditRow[],
  limit: number,
  present: (row: AuditRow) => T,
): AuditPage<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(present),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last.id) : null,
  };
}
