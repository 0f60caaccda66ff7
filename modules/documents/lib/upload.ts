/**
 * What an upload says about its file besides the bytes: the original file name (`?fileName=` or
 * an `X-File-Name` header, percent-encoded; the title when absent), the category (`?category=` or
 * `X-Document-Category`, `other` when absent, 422 when not one of the list), the date the document
 * bears (`?documentDate=YYYY-MM-DD`, optional), the title (`?title=` or an
 * `X-Document-Title` header, percent-encoded for anything beyond ASCII; either way NFC and held to
 * `sdk.text.textProblem`, as stored text is), the content type
 * (`?contentType=` or the request's Content-Type, else application/octet-stream) and optionally
 * the SHA-256 the client computed (`X-Content-SHA256`), checked against what arrives.
 */
import type { Context, SdkText, WardSdk } from '../../../src/sdk/index.ts';
import { CATEGORIES, isCategory, type Category } from './document.ts';
import { sanitiseFileName } from './file-name.ts';

export interface UploadMeta {
  title: string;
  fileName: string;
  contentType: string;
  category: Category;
  documentDate: string | null;
  expectedSha256?: string;
}

const MAX_TITLE = 255;
const TOKEN = '[a-z0-9!#$&^_.+-]+';
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\]*"))*$`, 'i');
const DEFAULT_TYPE = 'application/octet-stream';

const invalidUpload = (sdk: WardSdk, message: string, hint: string) =>
  new sdk.errors.ApiError(400, 'invalid_upload', message, hint);

function percentHeader(sdk: WardSdk, ctx: Context, header: string, what: string, query: string) {
  const raw = ctx.get(header);
  if (raw === '') return undefined;
  try {
    return decodeURIComponent(raw).normalize('NFC');
  } catch {
    throw invalidUpload(
      sdk,
      `the ${header} header is not valid percent-encoding`,
      `percent-encode the ${what} as UTF-8 (encodeURIComponent), or send it as ?${query}=`,
    );
  }
}

const headerTitle = (sdk: WardSdk, ctx: Context) =>
  percentHeader(sdk, ctx, 'X-Document-Title', 'title', 'title');

/** 422 `unknown_category`, for an upload and for a list filter alike. */
export function unknownCategory(sdk: WardSdk, value: string) {
  return new sdk.errors.ApiError(
    422,
    'unknown_category',
    `${JSON.stringify(value.slice(0, 80))} is not a document category`,
    `use one of ${CATEGORIES.join(', ')}`,
  );
}

export function categoryOf(sdk: WardSdk, raw: string | undefined): Category | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  if (!isCategory(value)) throw unknownCategory(sdk, value);
  return value;
}

/** The original file name: `?fileName=` or `X-File-Name` (percent-encoded), else the title. */
function fileName(sdk: WardSdk, ctx: Context, title: string): string {
  const raw =
    sdk.http.queryText(ctx, 'fileName') ?? percentHeader(sdk, ctx, 'X-File-Name', 'file name', 'fileName');
  if (raw === undefined) return sanitiseFileName(title) ?? 'document';
  const name = sanitiseFileName(raw);
  if (name === null)
    throw invalidUpload(
      sdk,
      `the file name ${JSON.stringify(raw.slice(0, 80))} has no name left once folders and control characters are taken out`,
      'send the file name as the file is called, such as report.pdf',
    );
  return name;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `?documentDate=YYYY-MM-DD`: the date the document bears, when it is not the upload's day. */
function documentDate(sdk: WardSdk, ctx: Context): string | null {
  const raw = sdk.http.queryText(ctx, 'documentDate');
  if (raw === undefined) return null;
  const match = DATE.exec(raw);
  const parsed = match === null ? null : new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!));
  if (parsed === null || parsed.toISOString().slice(0, 10) !== raw)
    throw new sdk.errors.ApiError(
      422,
      'invalid_document_date',
      `${JSON.stringify(raw.slice(0, 40))} is not a date`,
      'give the date the document bears as YYYY-MM-DD, such as 2026-11-27',
    );
  return raw;
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
  const checkedTitle = title(sdk, ctx);
  return {
    title: checkedTitle,
    fileName: fileName(sdk, ctx, checkedTitle),
    contentType: contentType(sdk, ctx),
    category:
      categoryOf(sdk, sdk.http.queryText(ctx, 'category') ?? (ctx.get('X-Document-Category') || undefined)) ??
      'other',
    documentDate: documentDate(sdk, ctx),
    ...(sha256 === '' ? {} : { expectedSha256: sha256 }),
  };
}
