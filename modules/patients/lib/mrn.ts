/**
 * MRNs Ward assigns: the clinic's format (WARD_MRN_FORMAT, such as `MRN-{seq:6}`) around a number
 * from the database sequence `patients_mrn_seq`, so that backends sharing the database never hand
 * out one number twice. Parsing and formatting are pure; the module reads the setting once, when
 * its routes load, and a bad format keeps them from mounting, with the message below.
 */

export const MRN_FORMAT_VARIABLE = 'WARD_MRN_FORMAT';
export const DEFAULT_MRN_FORMAT = '{seq:6}';

export interface MrnFormat {
  prefix: string;
  /** Digits at least: the number is zero-padded to this width, and grows beyond it when it must. */
  width: number;
  suffix: string;
}

const TOKEN = /\{seq(?::(\d{1,2}))?\}/gu;
/** Letters, digits and the separators MRNs use; no space, so an assigned MRN never needs trimming. */
const LITERAL = /^[\p{L}\p{N}\-_./#:]*$/u;

/** The format, or why `text` is not one (a sentence to follow "WARD_MRN_FORMAT "). */
export function parseMrnFormat(text: string): MrnFormat | { problem: string } {
  const tokens = [...text.matchAll(TOKEN)];
  if (tokens.length !== 1)
    return {
      problem: `must hold {seq} (or {seq:<digits>}) exactly once, and ${JSON.stringify(text)} holds it ${tokens.length} times`,
    };
  const token = tokens[0]!;
  const width = token[1] === undefined ? 1 : Number(token[1]);
  if (width < 1 || width > 18) return { problem: `pads the number to ${width} digits; give 1 to 18` };
  const prefix = text.slice(0, token.index);
  const suffix = text.slice(token.index + token[0].length);
  if (!LITERAL.test(prefix) || !LITERAL.test(suffix))
    return {
      problem: `may hold, beside {seq}, only letters, digits and - _ . / # :, and ${JSON.stringify(text)} holds something else`,
    };
  return { prefix, width, suffix };
}

/** The MRN for sequence number `seq`. */
export const formatMrn = (format: MrnFormat, seq: number | string): string =>
  `${format.prefix}${String(seq).padStart(format.width, '0')}${format.suffix}`;
