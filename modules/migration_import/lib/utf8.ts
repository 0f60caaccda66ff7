/** UTF-8 byte checks the decoder needs beyond `isUtf8`: where a sequence breaks, and where a chunk cuts one. */

/** Length of the sequence a lead byte starts, or 0 when it cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The allowed range of a sequence's second byte, which excludes overlong forms, surrogates and > U+10FFFF. */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

export interface Utf8Break {
  /** Offset of the first byte of the broken sequence. */
  offset: number;
  /** The sequence was valid so far but the bytes ended before it did. */
  truncated: boolean;
}

/** The first place where `bytes` (whole text, not a chunk with a cut tail) stops being valid UTF-8, or null. */
export function findUtf8Break(bytes: Uint8Array): Utf8Break | null {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    const length = sequenceLength(lead);
    if (length === 0) return { offset: index, truncated: false };
    for (let next = 1; next < length; next++) {
      if (index + next >= bytes.length) return { offset: index, truncated: true };
      const byte = bytes[index + next]!;
      const [low, high] = next === 1 ? secondByteRange(lead) : [0x80, 0xbf];
      if (byte < low || byte > high) return { offset: index, truncated: false };
    }
    index += length;
  }
  return null;
}

/**
 * How many bytes at the end of a chunk begin a multi-byte sequence the next chunk completes, so the
 * decoder keeps them back. Garbage tails are not judged here; they fail validation with the next chunk.
 */
export function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte < 0x80) return 0;
    const length = sequenceLength(byte) || 4;
    return length > back ? back : 0;
  }
  return 0;
}
