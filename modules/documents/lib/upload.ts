/**
 * What an upload says about its file besides the bytes: the title (`?title=` or an
 * `X-Document-Title` header, percent-encoded for anything beyond ASCII; either way NFC and held to
 * `sdk.text.textProblem`, as stored text is), the content type
 * (`?contentType=` or the request's Content-Type, else application/octet-stream) and optionally
 * the SHA-256 the client computed (`X-Content-SHA256`), checked against what arrives.
 */
import type { Context } from 'koa';
import type { WardSdk } from '../../../src/sdk/index.ts';

export interface UploadMeta {
  title: string;
  contentType: string;
  expectedSha256?: string;
}

const MAX_TITLE = 255;
const TOKEN = '[a-z0-9!#$&^_.+-]+';
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\]*"))*$`, 'i');
const DEFAULT_TYPE = 'application/octet-stream';

const invalidUpload = (sdk: WardSdk, message: string, hint: string) =>
  new sdk.errors.ApiError(400, 'invalid_upload', message, hint);

function headerTitle(sdk: WardSdk, ctx: Context): string | undefined {
  const raw = ctx.get('X-Document-Title');
  if (raw === '') return undefined;
  try {
    return decodeURIComponent(raw).normalize('NFC');
  } catch {
    throw invalidUpload(
      sdk,
      'the X-Document-Title header is not valid percent-encoding',
      'percent-encode the title as UTF-8 (encodeURIComponent), or send it as ?title=',
    );
  }
}

function title(sdk: WardSdk, ctx: Context): string {
  const value = (sdk.http.queryText(ctx, 'title') ?? headerTitle(sdk, ctx))?.trim();
  if (value === undefined || value === '')
    throw invalidUpload(
      sdk,
      'the upload has no title',
      'name the file with ?title= or an X-Document-Title header',
    );
  if (value.length > MAX_TITLE)
    throw invalidUpload(sdk, `the title is longer than ${MAX_TITLE} characters`, 'send a shorter title');
  // It becomes the download's file name, where a control character has no business, and people
  // tell documents apart by it, so no character nobody can see either.
  const problem = sdk.text.textProblem(value);
  if (problem !== null)
    throw invalidUpload(sdk, `the title ${problem.message}`, 'send the title without that character');
  return value;
}

function contentType(sdk: WardSdk, ctx: Context): string {
  const value = (sdk.http.queryText(ctx, 'contentType') ?? ctx.get('Content-Type')).trim();
  if (value === '') return DEFAULT_TYPE;
  if (value.length > 255 || !MEDIA_TYPE.test(value))
    throw invalidUpload(
      sdk,
      `${JSON.stringify(value)} is not a media type`,
      'send the file type as type/subtype, such as application/pdf, in Content-Type or ?contentType=',
    );
  return value;
}

/** Refuses compressed bodies (`sdk.http.refuseEncoded`) before reading anything else. */
export function uploadMeta(sdk: WardSdk, ctx: Context): UploadMeta {
  sdk.http.refuseEncoded(ctx);
  const sha256 = ctx.get('X-Content-SHA256');
  return {
    title: title(sdk, ctx),
    contentType: contentType(sdk, ctx),
    ...(sha256 === '' ? {} : { expectedSha256: sha256 }),
  };
}
