/**
 * What an upload says about its file besides the bytes: the title (`?title=` or an
 * `X-Document-Title` header, percent-encoded for anything beyond ASCII), the content type
 * (`?contentType=` or the request's Content-Type, else application/octet-stream) and optionally
 * the SHA-256 the client computed (`X-Content-SHA256`), checked against what arrives.
 */
import type { Context } from 'koa';
import { ApiError } from '../../../src/api/errors.ts';
import { queryText } from '../../patients/lib/request.ts';

export interface UploadMeta {
  title: string;
  contentType: string;
  expectedSha256?: string;
}

const MAX_TITLE = 255;
// eslint-disable-next-line no-control-regex -- finding them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const TOKEN = '[a-z0-9!#$&^_.+-]+';
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\]*"))*$`, 'i');
const DEFAULT_TYPE = 'application/octet-stream';

const invalidUpload = (message: string, hint: string) => new ApiError(400, 'invalid_upload', message, hint);

function headerTitle(ctx: Context): string | undefined {
  const raw = ctx.get('X-Document-Title');
  if (raw === '') return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidUpload(
      'the X-Document-Title header is not valid percent-encoding',
      'percent-encode the title as UTF-8 (encodeURIComponent), or send it as ?title=',
    );
  }
}

function title(ctx: Context): string {
  const value = (queryText(ctx, 'title') ?? headerTitle(ctx))?.trim();
  if (value === undefined || value === '')
    throw invalidUpload(
      'the upload has no title',
      'name the file with ?title= or an X-Document-Title header',
    );
  if (value.length > MAX_TITLE)
    throw invalidUpload(`the title is longer than ${MAX_TITLE} characters`, 'send a shorter title');
  // It becomes the download's file name, where a control character has no business.
  if (CONTROL.test(value))
    throw invalidUpload('the title contains control characters', 'send a title of printable characters');
  return value;
}

function contentType(ctx: Context): string {
  const value = (queryText(ctx, 'contentType') ?? ctx.get('Content-Type')).trim();
  if (value === '') return DEFAULT_TYPE;
  if (value.length > 255 || !MEDIA_TYPE.test(value))
    throw invalidUpload(
      `${JSON.stringify(value)} is not a media type`,
      'send the file type as type/subtype, such as application/pdf, in Content-Type or ?contentType=',
    );
  return value;
}

/**
 * Uploads are kept byte for byte: a compressed body would be stored compressed, under the wrong
 * type. Shared with migration_import's uploads.
 */
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

/** Refuses compressed bodies (`refuseEncoded`) before reading anything else. */
export function uploadMeta(ctx: Context): UploadMeta {
  refuseEncoded(ctx);
  const sha256 = ctx.get('X-Content-SHA256');
  return {
    title: title(ctx),
    contentType: contentType(ctx),
    ...(sha256 === '' ? {} : { expectedSha256: sha256 }),
  };
}
