/**
 * The audit trail's reads against the database: one page for a list, or every matching row, page
 * by page, for an export. Both only read: nothing here writes to the trail.
 */
import type { Knex } from 'knex';
import { presentEvent, type AuditEventJson } from './export.ts';
import {
  pageQuery,
  toPage,
  type AuditFilter,
  type AuditPage,
  type AuditPageRequest,
  type AuditRow,
} from './query.ts';

/** Rows per round trip of an export: big enough to stream fast, small enough to hold in memory. */
const EXPORT_BATCH = 1000;

/**
 * The names of the users among `rows`' actors. A user's row exists whenever an actor names one
 * (users are disabled, never deleted), so its name can be shown beside the recorded id.
 */
async function usernames(knex: Knex, rows: readonly AuditRow[]): Promise<Map<number, string>> {
  const ids = [...new Set(rows.flatMap((row) => (row.user_id === null ? [] : [row.user_id])))];
  if (ids.length === 0) return new Map();
  const found = (await knex('base_user').whereIn('id', ids).select('id', 'username')) as Array<{
    id: number;
    username: string;
  }>;
  return new Map(found.map((user) => [user.id, user.username]));
}

async function rowsOf(knex: Knex, request: AuditPageRequest): Promise<AuditRow[]> {
  const { sql, bindings } = pageQuery(request);
  return (await knex.raw(sql, bindings)).rows as AuditRow[];
}

export async function readAuditPage(
  knex: Knex,
  request: AuditPageRequest,
): Promise<AuditPage<AuditEventJson>> {
  const rows = await rowsOf(knex, request);
  const names = await usernames(knex, rows.slice(0, request.limit));
  return toPage(rows, request.limit, (row) => presentEvent(row, names));
}

/**
 * Every row matching `filter` older than `before`, newest first, at most `max` (null: all), read in
 * keyset batches so an export of millions of rows never holds more than one batch.
 */
export async function* auditEvents(
  knex: Knex,
  filter: AuditFilter,
  options: { before?: string | null; max?: number | null } = {},
): AsyncGenerator<AuditEventJson> {
  let before = options.before ?? null;
  let left = options.max ?? Infinity;
  while (left > 0) {
    const limit = Math.min(EXPORT_BATCH, left);
    const rows = await rowsOf(knex, { filter, before, limit });
    const shown = rows.slice(0, limit);
    const names = await usernames(knex, shown);
    for (const row of shown) yield presentEvent(row, names);
    left -= shown.length;
    const last = shown.at(-1);
    if (rows.length <= limit || last === undefined) return;
    before = last.id;
  }
}
