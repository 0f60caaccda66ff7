/**
 * JSON request bodies: UTF-8 JSON only, at most `limit` bytes (refused from Content-Length before a
 * byte is read when the client declares it, otherwise as soon as the stream passes the limit).
 * Bytes that are not UTF-8 are refused, never replaced; so is a key given twice in one object;
 * every string and key is then NFC (json-text.ts).
 */
import type { Context } from '../http/context.ts';
import { ApiError } from '../errors/api-error.ts';
import { bodyTooLarge } from '../sdk/errors.ts';
import { findDuplicateKey } from './json-duplicate-key.ts';
import { decodeUtf8, normaliseJson } from './json-text.ts';

export const hasBody = (ctx: Context): boolean =>
  ctx.get('Transfer-Encoding') !== '' || (ctx.request.length ?? 0) > 0;

const tooLarge = (limit: number) =>
  bodyTooLarge(
    'the request body',
    limit,
    'send a smaller body (the operator sets the limit with WARD_JSON_LIMIT)',
  );

/** The parsed body, or undefined when the request has none. */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  const type = ctx.request.type;
  if (ctx.request.is('application/json', 'application/*+json') === false)
    throw new ApiError(
      415,
      'unsupported_media_type',
      `this route takes a JSON body, not ${type === '' ? 'a body without Content-Type' : type}`,
      'send the body as JSON with Content-Type: application/json',
    );
  const charset = ctx.request.charset;
  const encoding = ctx.get('Content-Encoding').toLowerCase();
  if ((charset !== '' && charset.toLowerCase() !== 'utf-8') || (encoding !== '' && encoding !== 'identity'))
    throw new ApiError(
      415,
      'unsupported_media_type',
      `this route takes uncompressed UTF-8 JSON, not ${[charset, encoding].filter(Boolean).join(', ')}`,
      'send the body uncompressed, as UTF-8, with Content-Type: application/json',
    );
  if ((ctx.request.length ?? 0) > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const text = decodeUtf8(Buffer.concat(chunks, size));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ApiError(
      400,
      'invalid_json',
      `the request body is not valid JSON: ${(error as Error).message}`,
      'send a well-formed JSON document',
    );
  }
  const twice = findDuplicateKey(text);
  if (twice !== null)
    throw new ApiError(
      400,
      'duplicate_key',
      `the request body has the key ${JSON.stringify(twice.key)} twice at ${twice.pointer}`,
      'send each key once: JSON keeps only the last value of a repeated key, which may not be the one meant',
    );
  return normaliseJson(body);
}
