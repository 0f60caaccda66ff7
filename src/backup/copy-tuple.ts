/**
 * One COPY text row to one SQL tuple, `('v1',NULL,E'a\nb')`, from bytes to bytes. A field without
 * backslash, quote or control byte is its value's exact text and needs only quotes around it, so
 * it is copied byte for byte; only the rare other fields (and \N) are decoded and re-quoted as
 * strings. No per-row string is made for plain rows, which keeps the garbage collector, and with
 * it memory, quiet on millions of rows.
 */
import { decodeCopyField, decodeUtf8 } from './copy-text.ts';
import { sqlLiteral } from '../db/sql-literal.ts';

const TAB = 0x09;
const SPACE = 0x20;
const QUOTE = 0x27;
const BACKSLASH = 0x5c;
const N = 0x4e;
const OPEN = 0x28;
const CLOSE = 0x29;
const COMMA = 0x2c;
const NULL_LITERAL = 'NULL';

/**
 * An upper bound of the tuple's size: a field's literal is at most four bytes per input byte (a raw
 * control byte becomes \xhh) plus E'' and a cast of at most 9 bytes, plus a comma.
 */
export function maxTupleBytes(rowBytes: number, columns: number): number {
  return 4 * rowBytes + 13 * columns + 2;
}

/**
 * Writes the tuple for the row `src[start, end)` (no newline) at `out[at]` and returns where it
 * ends. `out` must have maxTupleBytes() free from `at`. `casts[i]` follows the literal of field i
 * (`::numeric` for money, otherwise empty).
 */
export function encodeTuple(
  src: Buffer,
  start: number,
  end: number,
  casts: readonly string[],
  out: Buffer,
  at: number,
): number {
  out[at++] = OPEN;
  let field = 0;
  let from = start;
  for (;;) {
    if (field > 0) out[at++] = COMMA;
    // Copied as a plain literal while scanning; a byte that needs more sends the field down the
    // slow path, which overwrites what was copied.
    out[at] = QUOTE;
    let written = at + 1;
    let stop = from;
    let plain = true;
    for (; stop < end; stop++) {
      const byte = src[stop]!;
      if (byte === TAB) break;
      if (byte < SPACE || byte === QUOTE || byte === BACKSLASH) {
        plain = false;
        stop = src.indexOf(TAB, stop);
        if (stop === -1 || stop > end) stop = end;
        break;
      }
      out[written++] = byte;
    }
    const cast = casts[field] ?? '';
    if (plain) {
      out[written++] = QUOTE;
      at = cast === '' ? written : written + out.write(cast, written, 'latin1');
    } else if (stop - from === 2 && src[from] === BACKSLASH && src[from + 1] === N) {
      at += out.write(NULL_LITERAL, at, 'latin1');
    } else {
      const value = decodeCopyField(decodeUtf8(src.subarray(from, stop)));
      at += out.write(value === null ? NULL_LITERAL : sqlLiteral(value) + cast, at, 'utf8');
    }
    field++;
    if (stop >= end) break;
    from = stop + 1;
  }
  if (field !== casts.length) throw new Error(`COPY returned ${field} fields for ${casts.length} columns`);
  out[at++] = CLOSE;
  return at;
}
