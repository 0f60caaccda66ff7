/**
 * Reading a request (`sdk.http`): who calls, path ids and query parameters. A malformed id is
 * answered like an unknown one, 404; a repeated query parameter, or one whose bytes are not UTF-8,
 * is refused rather than silently picked or repaired; query text is NFC, as stored text is.
 */
import type { Context } from '../http/context.ts';
import { callerOf } from '../auth/request-caller.ts';
import { ApiError } from '../errors/api-error.ts';
import { can } from '../auth/permissions.ts';
import { invalidQuery, notFound } from './errors.ts';
import type { Caller } from './index.ts';

/** PostgreSQL `integer` (serial) ids. */
const MAX_ID = 2 ** 31 - 1;
const ID = /^[1-9]\d{0,9}$/;

/** A view of the principal without its credential's secrets, which are no module's business. */
export function caller(ctx: Context): Caller {
  const { principal } = callerOf(ctx);
  return {
    userId: principal.userId,
    username: principal.username,
    roles: principal.roles,
    activeRoles: principal.activeRoles,
    via: principal.credential.kind,
    can: (permission) => can(principal.permissions, permission),
  };
}

export function parseId(text: string | undefined): number | null {
  if (text === undefined || !ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_ID ? id : null;
}

export function idParam(ctx: Context, name: string, what: string): number {
  const text = (ctx.params as Record<string, string | undefined>)[name];
  const id = parseId(text);
  if (id === null) throw notFound(what, text);
  return id;
}

export function queryText(ctx: Context, parameter: string): string | undefined {
  const value = ctx.query[parameter];
  if (Array.isArray(value)) throw invalidQuery(parameter, 'is given more than once');
  if (value === undefined || value === '') return undefined;
  // Koa's parser (URLSearchParams) turns bytes that are not UTF-8 into U+FFFD: a search would look
  // for a character nobody typed. Only a value holding U+FFFD can be such a one.
  if (value.includes('\uFFFD') && !percentDecodesAsUtf8(ctx.querystring, parameter))
    throw invalidQuery(parameter, 'is not UTF-8 once percent-decoded; percent-encode its UTF-8 bytes');
  return value.normalize('NFC');
}

/** Whether every raw value of `parameter` in `querystring` percent-decodes to UTF-8. */
function percentDecodesAsUtf8(querystring: string, parameter: string): boolean {
  for (const pair of querystring.split('&')) {
    const [name] = new URLSearchParams(pair).keys();
    const equals = pair.indexOf('=');
    if (name !== parameter || equals < 0) continue;
    // decodeURIComponent is strict about UTF-8; a "%" that starts no escape is kept, as Koa keeps it.
    const raw = pair
      .slice(equals + 1)
      .replaceAll('+', ' ')
      .replace(/%(?![\dA-Fa-f]{2})/g, '%25');
    try {
      decodeURIComponent(raw);
    } catch {
      return false;
    }
  }
  return true;
}

/** Uploads are kept byte for byte: a compressed body would be stored compressed, under the wrong type. */
export function refuseEncoded(ctx: Context): void {
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  if (encoding !== '' && encoding !== 'identity')
    throw new ApiError(
      415,
      'unsupported_media_type',
      `uploads are stored as sent, so they cannot be ${encoding}-encoded`,
      'send the file uncompressed (without Content-Encoding)',
    );
}
