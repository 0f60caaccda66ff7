/**
 * Reading PostgreSQL's COPY text format (https://www.postgresql.org/docs/15/sql-copy.html, "Text
 * Format"): rows end with a newline, fields are separated by tabs, `\N` alone is NULL, and
 * backslash escapes stand for the characters that would otherwise be ambiguous. What comes out is
 * each value's own text output, which the type's input function turns back into the same value.
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

const OCTAL_DIGIT = /[0-7]/;
const HEX_DIGIT = /[0-9a-fA-F]/;
const NEWLINE = 0x0a;

/**
 * Invalid UTF-8 is corrupt input, never data, so it throws instead of becoming U+FFFD. ignoreBOM
 * keeps a leading U+FEFF: it is a character of the value, and dropping it would alter the value.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** One field's value: null for `\N`, otherwise the text with every escape resolved. */
export function decodeCopyField(field: string): string | null {
  if (field === '\\N') return null;
  const first = field.indexOf('\\');
  if (first === -1) return field;
  let out = field.slice(0, first);
  // COPY TO never writes \ooo or \xhh, but COPY FROM accepts them as bytes, so a run of them is
  // collected and decoded as UTF-8 in one go.
  let bytes: number[] = [];
  const flushBytes = (): void => {
    if (bytes.length === 0) return;
    out += utf8.decode(Uint8Array.from(bytes));
    bytes = [];
  };
  let index = first;
  while (index < field.length) {
    const backslash = field.indexOf('\\', index);
    if (backslash !== index) {
      flushBytes();
      const end = backslash === -1 ? field.length : backslash;
      out += field.slice(index, end);
      index = end;
      continue;
    }
    const next = field[index + 1];
    if (next === undefined) throw new Error('COPY field ends with a lone backslash');
    if (OCTAL_DIGIT.test(next)) {
      let digits = next;
      while (digits.length < 3 && OCTAL_DIGIT.test(field[index + 1 + digits.length] ?? '')) {
        digits += field[index + 1 + digits.length];
      }
      bytes.push(parseInt(digits, 8) & 0xff);
      index += 1 + digits.length;
    } else if (next === 'x' && HEX_DIGIT.test(field[index + 2] ?? '')) {
      const digits = HEX_DIGIT.test(field[index + 3] ?? '')
        ? field.slice(index + 2, index + 4)
        : field[index + 2]!;
      bytes.push(parseInt(digits, 16));
      index += 2 + digits.length;
    } else {
      flushBytes();
      // Any other escaped character stands for itself: \\ is a backslash, \N inside a field is N.
      out += SIMPLE_ESCAPES[next] ?? next;
      index += 2;
    }
  }
  flushBytes();
  return out;
}

/** UTF-8 to text, refusing invalid bytes (see `utf8`). */
export const decodeUtf8 = (bytes: Uint8Array): string => utf8.decode(bytes);

/**
 * Cuts a stream of COPY data chunks into whole rows. A chunk may end inside a row or inside a
 * multi-byte character, so the tail after the last newline waits for the next chunk; a raw newline
 * byte is always a row end because newlines inside values are escaped. Rows stay bytes: most of
 * them are copied to the backup without ever becoming JavaScript strings.
 */
export class CopyRowSplitter {
  private pending: Buffer | null = null;

  /** Bytes holding only whole rows, each ending in a newline; empty while a row is incomplete. */
  push(chunk: Buffer): Buffer {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      if (chunk.length > 0)
        this.pending = this.pending === null ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
      return EMPTY;
    }
    const head = chunk.subarray(0, last + 1);
    const rows = this.pending === null ? head : Buffer.concat([this.pending, head]);
    // A copy, so the short tail does not keep the whole chunk alive.
    this.pending = last + 1 < chunk.length ? Buffer.from(chunk.subarray(last + 1)) : null;
    return rows;
  }

  /** Call after the last chunk: COPY ends every row with a newline, so a tail means truncated data. */
  end(): void {
    if (this.pending !== null)
      throw new Error(`COPY data ended inside a row (${this.pending.length} bytes after the last newline)`);
  }
}

const EMPTY = Buffer.alloc(0);
