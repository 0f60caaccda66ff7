/**
 * Pagination for the clinic modules' lists: `?limit` (default 50, at most 200) and either `?cursor`
 * (keyset: stable while rows are added, and as fast on page 1000 as on page 1) or `?offset` (for
 * jumping to a page number). Every list answers `{ items, nextCursor }`; `nextCursor` is null on the
 * last page. A cursor is the sort key of the last row, base64url JSON: opaque to clients, checked
 * on the way back in so a tampered one is a 400, never a database error.
 */
import type { Context } from 'koa';
import { createAjv } from '../../../src/api/validation.ts';
import { invalidQuery, queryText } from './request.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** `integer`: a PostgreSQL integer (serial id), so a larger one is refused here, not by the database. */
export type KeyKind = 'text' | 'integer' | 'timestamp';
const MAX_INTEGER = 2 ** 31 - 1;
export type Key = string | number;

export interface PageRequest {
  limit: number;
  /** Sort key of the last row already seen, or null from the start. */
  after: Key[] | null;
  offset: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

function integer(ctx: Context, parameter: string, min: number, max: number): number | undefined {
  const text = queryText(ctx, parameter);
  if (text === undefined) return undefined;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max))
    throw invalidQuery(parameter, `must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

/**
 * An RFC 3339 date-time with its offset, real days and hours: as PostgreSQL writes a timestamptz in
 * JSON, and as bodies' date-times are checked. Date.parse would let "February 30" through.
 */
export const isInstant = createAjv().compile({ type: 'string', format: 'date-time' });

const fits = (kind: KeyKind, value: unknown): value is Key =>
  kind === 'integer'
    ? Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_INTEGER
    : kind === 'text'
      ? typeof value === 'string'
      : isInstant(value);

export function decodeCursor(text: string, kinds: readonly KeyKind[]): Key[] | null {
  try {
    const key: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === kinds.length && kinds.every((kind, i) => fits(kind, key[i])))
      return key as Key[];
  } catch {
    // not base64url JSON: refused below like any other foreign cursor
  }
  return null;
}

export const encodeCursor = (key: readonly Key[]): string =>
  Buffer.from(JSON.stringify(key)).toString('base64url');

/** `kinds`: the types of the list's sort key, in order. */
export function pageRequest(ctx: Context, kinds: readonly KeyKind[]): PageRequest {
  const limit = integer(ctx, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const offset = integer(ctx, 'offset', 0, MAX_INTEGER);
  const cursor = queryText(ctx, 'cursor');
  if (cursor !== undefined && offset !== undefined)
    throw invalidQuery('cursor', 'cannot be combined with offset; send one of them');
  const after = cursor === undefined ? null : decodeCursor(cursor, kinds);
  if (cursor !== undefined && after === null)
    throw invalidQuery('cursor', 'is not a cursor this list gave out; start again without it');
  return { limit, after, offset: offset ?? 0 };
}

/** `rows`: up to `limit + 1` rows fetched in order; the extra one only says another page exists. */
export function toPage<R, T>(
  rows: readonly R[],
  limit: number,
  keyOf: (row: R) => Key[],
  present: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(present),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}
