/**
 * RFC 4180 CSV, streamed: text chunks in, records out, each with the line it starts on. Lines
 * without a quote (nearly all of a Synthea export) are split natively; only lines with a quote take
 * the character-level path. Bad quoting is reported per record and reading goes on at the next
 * line; a record that never ends is cut off at `maxRecordChars` so memory stays bounded.
 * Deliberately lenient in one way: a quote inside an unquoted field (`5'10"`) is kept as text.
 *
 * Hand-written rather than `csv-parse`: readers need the starting line of every record and
 * continue-after-error semantics per record, and this is ~150 lines under a round-trip property test.
 */
import { InputFault } from './fault.ts';
import { warn } from './warnings.ts';
import type { ImportWarning } from './records.ts';

/** A record's fields, or why it could not be read; `column` (0-based) lets a reader name the column. */
export type CsvRecord =
  { line: number; fields: string[] } | { line: number; column: number; problem: ImportWarning };

export const DEFAULT_MAX_RECORD_CHARS = 1 << 20;

const QUOTE = 34;
const COMMA = 44;
const NEWLINE = 10;
const RETURN = 13;

const countNewlines = (text: string): number => {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
};

/** Pushes text, takes complete records; `end()` flushes the last one. */
export class CsvSplitter {
  #buffer = '';
  #line = 1;
  /** Index in `#buffer` of the next quote at or after the read position, cached so lines are not rescanned. */
  #nextQuote = -1;
  readonly #maxRecordChars: number;
  #fault: InputFault | undefined;

  constructor(maxRecordChars = DEFAULT_MAX_RECORD_CHARS) {
    this.#maxRecordChars = maxRecordChars;
  }

  /** Records completed by `text`. A record over the limit is thrown on the next call, after the records before it. */
  push(text: string): CsvRecord[] {
    if (this.#fault !== undefined) throw this.#fault;
    this.#buffer += text;
    return this.#drain(false);
  }

  end(): CsvRecord[] {
    if (this.#fault !== undefined) throw this.#fault;
    return this.#drain(true);
  }

  #drain(final: boolean): CsvRecord[] {
    const records: CsvRecord[] = [];
    const buffer = this.#buffer;
    let position = 0;
    this.#nextQuote = buffer.indexOf('"');
    while (position < buffer.length) {
      if (this.#nextQuote !== -1 && this.#nextQuote < position)
        this.#nextQuote = buffer.indexOf('"', position);
      const newline = buffer.indexOf('\n', position);
      if (newline === -1 && !final) break;
      const lineEnd = newline === -1 ? buffer.length : newline;
      const next = newline === -1 ? buffer.length : newline + 1;
      if (this.#nextQuote === -1 || this.#nextQuote > lineEnd) {
        const text =
          buffer.charCodeAt(lineEnd - 1) === RETURN
            ? buffer.slice(position, lineEnd - 1)
            : buffer.slice(position, lineEnd);
        if (text !== '') records.push({ line: this.#line, fields: text.split(',') });
        this.#line++;
        position = next;
        continue;
      }
      const record = this.#quoted(buffer, position, final);
      if (record === null) break;
      records.push(record.record);
      this.#line += record.lines;
      position = record.next;
    }
    this.#buffer = buffer.slice(position);
    if (!final && this.#buffer.length > this.#maxRecordChars) {
      const limit = this.#maxRecordChars;
      this.#fault = new InputFault(this.#line, (at) => warn.recordTooLong(at, limit));
    }
    return records;
  }

  /** The record at `start`, character by character; null when it may continue past the buffered text. */
  #quoted(
    buffer: string,
    start: number,
    final: boolean,
  ): { record: CsvRecord; next: number; lines: number } | null {
    const line = this.#line;
    const fields: string[] = [];
    let position = start;
    for (;;) {
      if (buffer.charCodeAt(position) !== QUOTE) {
        let end = position;
        while (end < buffer.length) {
          const code = buffer.charCodeAt(end);
          if (code === COMMA || code === NEWLINE) break;
          end++;
        }
        if (end === buffer.length && !final) return null;
        const cr =
          buffer.charCodeAt(end) !== COMMA && buffer.charCodeAt(end - 1) === RETURN && end > position;
        fields.push(buffer.slice(position, cr ? end - 1 : end));
        if (buffer.charCodeAt(end) === COMMA) {
          position = end + 1;
          continue;
        }
        return {
          record: { line, fields },
          next: end + 1,
          lines: 1 + countNewlines(buffer.slice(start, end)),
        };
      }
      let value = '';
      let from = position + 1;
      for (;;) {
        const close = buffer.indexOf('"', from);
        if (close === -1 || close === buffer.length - 1) {
          if (!final) return null;
          if (close === -1) {
            return {
              record: {
                line,
                column: fields.length,
                problem: warn.unclosedQuote({ row: line, field: `field ${fields.length + 1}` }),
              },
              next: buffer.length,
              lines: countNewlines(buffer.slice(start)) + 1,
            };
          }
        }
        value += buffer.slice(from, close);
        if (buffer.charCodeAt(close + 1) === QUOTE) {
          value += '"';
          from = close + 2;
          continue;
        }
        position = close + 1;
        break;
      }
      fields.push(value);
      const after = buffer.charCodeAt(position);
      if (after === COMMA) {
        position++;
        continue;
      }
      if (position === buffer.length || after === NEWLINE) {
        return {
          record: { line, fields },
          next: position + 1,
          lines: 1 + countNewlines(buffer.slice(start, position)),
        };
      }
      if (after === RETURN && buffer.charCodeAt(position + 1) === NEWLINE) {
        return {
          record: { line, fields },
          next: position + 2,
          lines: 1 + countNewlines(buffer.slice(start, position)),
        };
      }
      if (after === RETURN && position + 1 === buffer.length && !final) return null;
      // Garbage after a closing quote: the record's end cannot be trusted, so skip to the end of this line.
      const newline = buffer.indexOf('\n', position);
      if (newline === -1 && !final) return null;
      const next = newline === -1 ? buffer.length : newline + 1;
      return {
        record: {
          line,
          column: fields.length - 1,
          problem: warn.strayQuote(
            { row: line, field: `field ${fields.length}` },
            buffer[position]!,
            fields.length,
          ),
        },
        next,
        lines: 1 + countNewlines(buffer.slice(start, next - 1)),
      };
    }
  }
}

/** Records of a text stream, in order. */
export async function* parseCsv(
  chunks: AsyncIterable<string>,
  maxRecordChars = DEFAULT_MAX_RECORD_CHARS,
): AsyncGenerator<CsvRecord> {
  const splitter = new CsvSplitter(maxRecordChars);
  for await (const text of chunks) yield* splitter.push(text);
  yield* splitter.end();
}

/** One CSV line (no line break), quoting only fields that need it; `formatCsvRow([''])` is `""`, not a blank line. */
export function formatCsvRow(fields: readonly string[]): string {
  if (fields.length === 1 && fields[0] === '') return '""';
  return fields
    .map((field) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field))
    .join(',');
}
