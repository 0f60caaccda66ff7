/**
 * Splits a SQL script into statements while streaming it: a `;` ends a statement unless it is
 * inside a string literal or a quoted identifier, and `--` starts a comment outside them. Enough
 * for the files backup.ts writes (standard and E'' strings whose only quote escape is '' and
 * whose backslashes always come in escape pairs), not for SQL in general (no dollar quoting, no
 * block comments).
 */

/** A file that went through CRLF conversion still reads: values never hold a raw line break. */
const comment = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);

export type ScriptItem = { kind: 'comment'; text: string } | { kind: 'statement'; text: string };

const STATE = { code: 0, literal: 1, identifier: 2, comment: 3 } as const;
type State = (typeof STATE)[keyof typeof STATE];

/** Yields comments (without the line break) and statements (trimmed, with their `;`). */
export async function* readStatements(chunks: AsyncIterable<string>): AsyncGenerator<ScriptItem> {
  /** Per call: the regex keeps its position in lastIndex. */
  const special = /['";-]/g;
  let buffer = '';
  let state: State = STATE.code;
  /** Where the current statement or comment starts in `buffer`. */
  let start = 0;
  /** Where scanning resumes. */
  let position = 0;
  for await (const chunk of chunks) {
    buffer = buffer.slice(start) + chunk;
    position -= start;
    start = 0;
    const items: ScriptItem[] = [];
    while (position < buffer.length) {
      if (state === STATE.literal || state === STATE.identifier) {
        const close = buffer.indexOf(state === STATE.literal ? "'" : '"', position);
        if (close === -1) {
          position = buffer.length;
          break;
        }
        // A doubled quote closes and reopens: the scan toggles twice and ends up inside again.
        state = STATE.code;
        position = close + 1;
      } else if (state === STATE.comment) {
        const newline = buffer.indexOf('\n', position);
        if (newline === -1) {
          position = buffer.length;
          break;
        }
        items.push({ kind: 'comment', text: comment(buffer.slice(start, newline)) });
        start = position = newline + 1;
        state = STATE.code;
      } else {
        special.lastIndex = position;
        const match = special.exec(buffer);
        if (match === null) {
          position = buffer.length;
          break;
        }
        const at = match.index;
        const character = match[0];
        if (character === "'") state = STATE.literal;
        else if (character === '"') state = STATE.identifier;
        else if (character === ';') {
          const text = buffer.slice(start, at + 1).trim();
          items.push({ kind: 'statement', text });
          start = at + 1;
        } else if (at + 1 >= buffer.length) {
          // A lone '-' at the end of the chunk: the next chunk decides whether it opens a comment.
          position = at;
          break;
        } else if (buffer[at + 1] === '-') {
          const before = buffer.slice(start, at).trim();
          if (before !== '') throw new Error(`a comment interrupts the statement ${JSON.stringify(before)}`);
          state = STATE.comment;
          start = at;
        }
        position = at + 1;
      }
    }
    yield* items;
  }
  if (state === STATE.comment) yield { kind: 'comment', text: comment(buffer.slice(start)) };
  else if (state !== STATE.code) throw new Error('the script ends inside a quoted string or name');
  const rest = buffer.slice(start).trim();
  if (rest !== '' && state === STATE.code)
    throw new Error(`the script ends with an unterminated statement ${JSON.stringify(rest.slice(0, 80))}`);
}
