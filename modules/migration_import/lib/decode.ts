/**
 * Bytes to text, refusing anything that is not UTF-8: a Latin-1 or UTF-16 export decoded
 * leniently would import mojibake names that nobody notices until a patient does. A UTF-8 byte
 * order mark is dropped. Chunks are checked natively (`isUtf8`); the byte-by-byte search only runs
 * on the failing chunk, to name the offset. Text before the fault is yielded first, then the fault
 * is thrown, so readers still report the complete rows before it.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { InputFault } from './fault.ts';
import type { ByteSource } from './records.ts';
import { findUtf8Break, incompleteTail } from './utf8.ts';
import { warn } from './warnings.ts';

const NEWLINE = 0x0a;

const view = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array {
  const joined = new Uint8Array(head.length + tail.length);
  joined.set(head);
  joined.set(tail, head.length);
  return joined;
}

function countNewlines(bytes: Buffer, end = bytes.length): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1 && at < end; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** Throws for a byte order mark of UTF-16 (or UTF-32, which starts the same); returns the UTF-8 mark's length. */
function byteOrderMark(bytes: Uint8Array): number {
  const [first, second, third] = bytes;
  if (first === 0xff && second === 0xfe) throw new InputFault(1, (at) => warn.utf16(at, 'FF FE'));
  if (first === 0xfe && second === 0xff) throw new InputFault(1, (at) => warn.utf16(at, 'FE FF'));
  return first === 0xef && second === 0xbb && third === 0xbf ? 3 : 0;
}

export async function* decodeUtf8(source: ByteSource): AsyncGenerator<string> {
  let pending: Uint8Array = new Uint8Array(0);
  /** Byte offset in the file of `pending[0]`. */
  let offset = 0;
  let line = 1;
  let started = false;

  function* checked(bytes: Uint8Array, final: boolean): Generator<string> {
    const body = view(bytes);
    const nul = body.indexOf(0);
    const broken = nul === -1 && isUtf8(body) ? null : findUtf8Break(body);
    const faultAt = Math.min(nul === -1 ? Infinity : nul, broken?.offset ?? Infinity);
    if (faultAt === Infinity) {
      if (body.length > 0) yield body.toString('utf8');
      line += countNewlines(body);
      offset += body.length;
      return;
    }
    if (faultAt > 0) yield body.toString('utf8', 0, faultAt);
    const faultLine = line + countNewlines(body, faultAt);
    const faultOffset = offset + faultAt;
    if (faultAt === nul) throw new InputFault(faultLine, (at) => warn.nulByte(at, faultOffset, faultLine));
    if (broken!.truncated && final)
      throw new InputFault(faultLine, (at) => warn.truncatedUtf8(at, faultOffset, faultLine));
    const byte = body[faultAt]!;
    throw new InputFault(faultLine, (at) => warn.invalidUtf8(at, byte, faultOffset, faultLine));
  }

  for await (const chunk of source) {
    let data = pending.length === 0 ? chunk : concat(pending, chunk);
    if (!started) {
      // A mark can only be recognised whole; a source may deliver its first bytes one at a time.
      if (data.length < 3) {
        pending = data.slice();
        continue;
      }
      started = true;
      const mark = byteOrderMark(data);
      data = data.subarray(mark);
      offset = mark;
    }
    const keep = incompleteTail(data);
    yield* checked(data.subarray(0, data.length - keep), false);
    pending = data.slice(data.length - keep);
  }
  if (!started) {
    const mark = byteOrderMark(pending);
    pending = pending.subarray(mark);
    offset = mark;
  }
  yield* checked(pending, true);
}
