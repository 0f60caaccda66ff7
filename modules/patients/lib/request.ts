/**
 * Reading path and query parameters, shared by the clinic modules (appointments and documents
 * depend on patients, so they import it from here). A malformed id is answered like an unknown
 * one, 404: a client cannot tell "no such patient" from "not a patient id", nor needs to.
 */
import type { Context } from 'koa';
import { ApiError } from '../../../src/api/errors.ts';

/** PostgreSQL `integer` (serial) ids. */
const MAX_ID = 2 ** 31 - 1;
const ID = /^[1-9]\d{0,9}$/;

export function parseId(text: string | undefined): number | null {
  if (text === undefined || !ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_ID ? id : null;
}

export function notFound(what: string, id: string | number | undefined): ApiError {
  return new ApiError(
    404,
    'not_found',
    `there is no ${what} ${String(id)}`,
    `check the id; list them with GET on the collection`,
  );
}

/** The route parameter `name` as an id, or 404 naming `what`. */
export function idParam(ctx: Context, name: string, what: string): number {
  const text = (ctx.params as Record<string, string | undefined>)[name];
  const id = parseId(text);
  if (id === null) throw notFound(what, text);
  return id;
}

export function invalidQuery(parameter: string, message: string): ApiError {
  return new ApiError(
    400,
    'invalid_query',
    `the query parameter ${parameter} ${message}`,
    'fix that parameter and send the request again (GET /api/v1/openapi.json lists the routes)',
  );
}

/** One query parameter's text; a repeated parameter is refused rather than silently picked. */
export function queryText(ctx: Context, parameter: string): string | undefined {
  const value = ctx.query[parameter];
  if (Array.isArray(value)) throw invalidQuery(parameter, 'is given more than once');
  return value === undefined || value === '' ? undefined : value;
}
