/**
 * Pagination for modules' lists (`sdk.http`): `?limit` (default 50, at most 200) and either
 * `?cursor` (keyset: stable while rows are added, and as fast on page 1000 as on page 1) or
 * `?offset` (for jumping to a page number). Every list answers `{ items, nextCursor }`;
 * `nextCursor` is null on the last page. A cursor is the sort key of the last row, base64url JSON:
 * opaque to clients, checked on the way back in so a tampered one is a 400, never a database error.
 */
import type { Context } from '../http/context.ts';
import { invalidQuery } from './errors.ts';
import type { KeyKind, Page, PageKey, PageRequest } from './index.ts';
import { queryText } from './request.ts';
import { isInstant } from './schema.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

const MAX_INTEGER = 2 ** 31 - 1;

function integer(ctx: Context, parameter: string, min: number, max: number): number | undefined {
  const text = queryText(ctx, parameter);
  if (text === undefined) return undefined;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max))
    throw invalidQuery(parameter, `must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

const fits = (kind: KeyKind, value: unknown): value is PageKey =>
  kind === 'integer'
    ? Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_INTEGER
    : kind === 'text'
      ? typeof value === 'string'
      : isInstant(value);

export function decodeCursor(text: string, kinds: readonly KeyKind[]): PageKey[] | null {
  try {
    const key: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === kinds.length && kinds.every((kind, i) => fits(kind, key[i])))
      return key as PageKey[];
  } catch {
    // not base64url JSON: refused below like any other foreign cursor
  }
  return null;
}

export const encodeCursor = (key: readonly PageKey[]): string =>
  Buffer.from(JSON.stringify(key)).toString('base64url');

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

export function toPage<R, T>(
  rows: readonly R[],
  limit: number,
  keyOf: (row: R) => PageKey[],
  present: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(present),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}
