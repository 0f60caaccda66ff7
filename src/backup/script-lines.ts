/**
 * Reads a backup file as it streams, line by line, the way psql reads it: `--` lines are comments,
 * other lines make up statements that end with a line ending in `;`, and after a
 * `COPY ... FROM stdin;` statement every line is a row of COPY data until the line `\.`.
 * That is enough for the files backup.ts writes, not for SQL in general: a statement that ends
 * mid-line, or a line that ends with `;` inside a string, is not read as psql would. Backups never
 * hold either: values never hold a raw line break (COPY and E'' strings escape them), and a
 * statement always ends its line.
 *
 * COPY data stays bytes, in runs of whole rows as they arrive, so restoring a million rows makes
 * no string per row. A file whose line breaks became CRLF still reads: the `\r` is dropped from
 * comments and statements, and COPY takes CRLF rows as they are.
 */

export type ScriptItem =
  | { kind: 'comment'; text: string }
  | { kind: 'statement'; text: string }
  /** Whole rows of COPY data, each ending in a line break; `rows` counts them. */
  | { kind: 'data'; bytes: Buffer; rows: number }
  /** The `\.` line that ends a statement's COPY data. */
  | { kind: 'end-of-data' };

const NEWLINE = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
const COPY_FROM_STDIN = /^COPY .* FROM stdin;$/;

/** Whether the line `buffer[start, end)` (without its line break) is COPY's end marker. */
const endOfData = (buffer: Buffer, start: number, end: number): boolean =>
  buffer[start] === BACKSLASH &&
  buffer[start + 1] === DOT &&
  (end === start + 2 || (end === start + 3 && buffer[start + 2] === CR));

const withoutCr = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);

export async function* readScript(chunks: AsyncIterable<Buffer>): AsyncGenerator<ScriptItem> {
  let pending: Buffer | null = null;
  let copying = false;
  /** Lines of the statement read so far. */
  let statement: string[] = [];

  function* sqlLine(line: string): Generator<ScriptItem> {
    if (statement.length === 0) {
      if (line.startsWith('--')) {
        yield { kind: 'comment', text: line };
        return;
      }
      if (line.trim() === '') return;
    }
    statement.push(line);
    if (!line.trimEnd().endsWith(';')) return;
    const text = statement.join('\n').trim();
    statement = [];
    copying = COPY_FROM_STDIN.test(text);
    yield { kind: 'statement', text };
  }

  for await (const chunk of chunks) {
    const buffer: Buffer = pending === null ? chunk : Buffer.concat([pending, chunk]);
    pending = null;
    let position = 0;
    while (position < buffer.length) {
      if (copying) {
        const start = position;
        let rows = 0;
        let ended = false;
        for (;;) {
          const newline = buffer.indexOf(NEWLINE, position);
          if (newline === -1) break;
          if (endOfData(buffer, position, newline)) {
            ended = true;
            break;
          }
          rows++;
          position = newline + 1;
        }
        if (rows > 0) yield { kind: 'data', bytes: buffer.subarray(start, position), rows };
        if (!ended) break;
        yield { kind: 'end-of-data' };
        copying = false;
        position = buffer.indexOf(NEWLINE, position) + 1;
        continue;
      }
      const newline = buffer.indexOf(NEWLINE, position);
      if (newline === -1) break;
      yield* sqlLine(withoutCr(buffer.toString('utf8', position, newline)));
      position = newline + 1;
    }
    if (position < buffer.length) pending = buffer.subarray(position);
  }
  // The last line may lack its line break; a half row of COPY data is left for the caller to
  // find missing (the data never ends).
  if (pending !== null && !copying) yield* sqlLine(withoutCr(pending.toString('utf8')));
  if (statement.length > 0) yield { kind: 'statement', text: statement.join('\n').trim() };
}
