/**
 * What an upload says about its file besides the bytes: the title (`?title=` or an
 * `X-Document-Title` header, percent-encoded for anything beyond ASCII; either way NFC and held to
 * `sdk.text.textProblem`, as stored text is), the content type
 * (`?contentType=` or the request's Content-Type, else application/octet-stream) and optionally
 * the SHA-256 the client computed (`X-Content-SHA256`), checked against what arrives.
 */
import type { Context } from 'koa';
import type { SdkText, WardSdk } from '../../../src/sdk/index.ts';

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

/** A checked title or content type, or what is wrong with it and how to fix it. */
export type MetaCheck = { ok: true; value: string } | { ok: false; message: string; hint: string };

/**
 * The one title rule of documents, for uploads and for imports alike: trimmed, NFC, present, at
 * most 255 characters, and (with `text`, the SDK's rules) no control character or character
 * nobody can see. It becomes the download's file name, where a control character has no business,
 * and people tell documents apart by it. `text` is left out only for a value already checked.
 */
export function checkDocumentTitle(raw: string | undefined, text?: SdkText): MetaCheck {
  const value = raw?.normalize('NFC').trim();
  if (value === undefined || value === '')
    return { ok: false, message: 'the title is missing', hint: 'give the document a title' };
  if ([...value].length > MAX_TITLE)
    return {
      ok: false,
      message: `the title is longer than ${MAX_TITLE} characters`,
      hint: 'send a shorter title',
    };
  const problem = text?.textProblem(value);
  if (problem != null)
    return {
      ok: false,
      message: `the title ${problem.message}`,
      hint: 'send the title without that character',
    };
  return { ok: true, value };
}

/**
 * The one content type rule of documents: trimmed; none means application/octet-stream; else a
 * media type (type/subtype, parameters) of at most 255 characters, so that no CR, LF or other
 * character a Content-Type header cannot carry is ever stored and served back.
 */
export function checkDocumentContentType(raw: string | undefined): MetaCheck {
  const value = raw?.trim() ?? '';
  if (value === '') return { ok: true, value: DEFAULT_TYPE };
  if (value.length > 255 || !MEDIA_TYPE.test(value))
    return {
      ok: false,
      message: `${JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)} is not a media type`,
      hint: 'give the file type as type/subtype, such as application/pdf',
    };
  return { ok: true, value };
}

function title(sdk: WardSdk, ctx: Context): string {
  const value = sdk.http.queryText(ctx, 'title') ?? headerTitle(sdk, ctx);
  if (value === undefined || value.trim() === '')
    throw invalidUpload(
      sdk,
      'the upload has no title',
      'name the file with ?title= or an X-Document-Title header',
    );
  const checked = checkDocumentTitle(value, sdk.text);
  if (!checked.ok) throw invalidUpload(sdk, checked.message, checked.hint);
  return checked.value;
}

function contentType(sdk: WardSdk, ctx: Context): string {
  const checked = checkDocumentContentType(sdk.http.queryText(ctx, 'contentType') ?? ctx.get('Content-Type'));
  if (!checked.ok)
    throw invalidUpload(sdk, checked.message, `${checked.hint}, in Content-Type or ?contentType=`);
  return checked.value;
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
