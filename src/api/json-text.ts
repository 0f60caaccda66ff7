/**
 * The text of JSON bodies: strictly UTF-8, and every string in NFC, keys included. A lenient
 * decoder would store U+FFFD in place of bytes it could not read, and "José" with a combining
 * accent would be a second MRN beside "José" precomposed; both are refused or fixed here, once,
 * before any route sees the body. Pure: no I/O.
 */
import { ApiError } from '../errors/api-error.ts';

// ignoreBOM keeps a byte order mark in the text, where JSON.parse refuses it as it always has.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const hex = (byte: number): string => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Where `bytes` stop being UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF): the byte that begins no valid character (a Latin-1 "é" is a lead byte the next byte
 * does not continue), or the lead of a character the bytes end inside. Everything before is UTF-8.
 */
export type Utf8Break =
  { kind: 'byte'; offset: number; byte: number } | { kind: 'truncated'; offset: number } | null;

export function utf8Break(bytes: Uint8Array): Utf8Break {
  for (let at = 0; at < bytes.length;) {
    const lead = bytes[at]!;
    if (lead < 0x80) {
      at++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return { kind: 'byte', offset: at, byte: lead };
    for (let next = 1; next < length; next++) {
      const byte = bytes[at + next];
      if (byte === undefined) return { kind: 'truncated', offset: at };
      if (byte < low || byte > high) return { kind: 'byte', offset: at, byte: lead };
      low = 0x80;
      high = 0xbf;
    }
    at += length;
  }
  return null;
}

/** The body's text; 400 `invalid_utf8` naming the first byte that is not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch (error) {
    const found = utf8Break(bytes);
    const where =
      found?.kind === 'truncated'
        ? `it ends inside the character that starts at byte offset ${found.offset}`
        : found === null
          ? 'the decoder refused it'
          : `byte ${hex(found.byte)} at byte offset ${found.offset} does not begin a valid UTF-8 character`;
    throw new ApiError(
      400,
      'invalid_utf8',
      `the request body is not valid UTF-8: ${where}`,
      'encode the body as UTF-8 (Latin-1 or Windows-1252 text is the usual cause) and send it again',
      { cause: error },
    );
  }
}

/** A step of the path to a value, for the JSON pointer of an error. */
type Place = { parent: Place; key: string | number } | null;

function pointer(place: Place): string {
  const parts: string[] = [];
  for (let at = place; at !== null; at = at.parent)
    parts.push(String(at.key).replaceAll('~', '~0').replaceAll('/', '~1'));
  return `/${parts.reverse().join('/')}`;
}

function nfc(text: string, place: Place): string {
  if (text.isWellFormed()) return text.normalize('NFC');
  const unit = [...text].find((character) => !character.isWellFormed())!.charCodeAt(0);
  throw new ApiError(
    400,
    'invalid_json',
    `the request body holds a lone surrogate \\u${unit.toString(16).toUpperCase()} at ${pointer(place)}, which is no character`,
    'send characters as UTF-8, or escape one beyond U+FFFF as a pair of \\u escapes (high, then low)',
  );
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * `body` with every string and key in NFC: arrays and objects whose keys are already NFC are
 * changed in place. Iterative: JSON.parse accepts nesting deeper than the call stack. 400
 * `invalid_json` for a lone surrogate (a `\uD800` escape JSON allows but no encoding can store),
 * 400 `duplicate_key` for two keys of one object that are the same once normalised.
 */
export function normaliseJson(body: unknown): unknown {
  const pending: Array<{ node: object; place: Place }> = [];
  const visit = (value: unknown, place: Place): unknown => {
    if (typeof value === 'string') return nfc(value, place);
    if (!isContainer(value)) return value;
    const node = Array.isArray(value) ? value : withNfcKeys(value as Record<string, unknown>, place);
    pending.push({ node, place });
    return node;
  };
  const root = visit(body, null);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, place } = next;
    if (Array.isArray(node))
      for (let index = 0; index < node.length; index++)
        node[index] = visit(node[index], { parent: place, key: index });
    else {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) record[key] = visit(record[key], { parent: place, key });
    }
  }
  return root;
}

/**
 * `record` itself when its keys are NFC, else a copy with normalised keys in the same order
 * (Object.fromEntries defines them, so a `__proto__` key stays a key).
 */
function withNfcKeys(record: Record<string, unknown>, place: Place): Record<string, unknown> {
  const keys = Object.keys(record);
  const normal = keys.map((key) => nfc(key, { parent: place, key }));
  if (normal.every((key, index) => key === keys[index])) return record;
  const seen = new Set<string>();
  for (const key of normal) {
    if (seen.has(key))
      throw new ApiError(
        400,
        'duplicate_key',
        `the request body has the key ${JSON.stringify(key)} twice at ${pointer(place)} once keys are in Unicode NFC`,
        'send each key once: a key with a combining accent and the same key precomposed are one key',
      );
    seen.add(key);
  }
  return Object.fromEntries(normal.map((key, index) => [key, record[keys[index]!]]));
}
