/**
 * A backup's multi-row INSERT statement as COPY text rows, so that restore can stream them into
 * COPY FROM STDIN: the server then parses no SQL per row (with INSERTs, parsing is most of a
 * restore's time). Pure: statement text in, rows out.
 *
 * It reads only what backup writes: `INSERT INTO "t" (cols) [OVERRIDING SYSTEM VALUE ]VALUES`
 * and tuples of NULL, standard strings ('' doubling, no backslash, no control character) and E''
 * strings (sqlLiteral's), with no cast. E'' strings use
 * only escapes that mean the same in COPY's text format (\\ \b \f \n \r \t \xhh), so a literal's
 * text goes over as it is, with its quotes undoubled. Anything else is not converted (null) and
 * restore runs the statement as it is, so a file edited by hand still restores.
 */

export interface CopyRows {
  /** The quoted table name, as in the statement. */
  table: string;
  /** `("a", "b")`, as in the statement. */
  columns: string;
  /** COPY text: one line per row, fields separated by tabs. */
  text: string;
  rows: number;
}

const NAME = String.raw`(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_]*)`;
const HEAD = new RegExp(
  String.raw`^INSERT INTO ("(?:[^"]|"")+") (\(${NAME}(?:, ${NAME})*\)) (?:OVERRIDING SYSTEM VALUE )?VALUES\s*`,
);
const QUOTE = 39;

const isSpace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9;

/**
 * Text COPY would read otherwise than SQL does: in a standard string a backslash or a raw tab or
 * line break (backup never writes them there, a hand edit might); in an E'' string a raw tab or
 * line break, or a Unicode escape, which COPY does not have.
 */
const NOT_COPY_STANDARD = /[\\\t\n\r]/;
const NOT_COPY_ESCAPE = /[\t\n\r]|(?<!\\)(?:\\\\)*\\[uU]/;

export function insertToCopy(statement: string): CopyRows | null {
  const head = HEAD.exec(statement);
  if (head === null) return null;
  const columns = head[2]!;
  const width = columns.split(', ').length;
  let at = head[0].length;
  const end = statement.length;
  const skipSpace = () => {
    while (at < end && isSpace(statement.charCodeAt(at))) at++;
  };
  const lines: string[] = [];
  const fields: string[] = [];
  for (;;) {
    if (statement[at] !== '(') return null;
    at++;
    fields.length = 0;
    for (;;) {
      skipSpace();
      if (statement.startsWith('NULL', at)) {
        fields.push('\\N');
        at += 4;
      } else {
        const escape = statement[at] === 'E';
        if (escape) at++;
        if (statement.charCodeAt(at) !== QUOTE) return null;
        const start = at + 1;
        let close = statement.indexOf("'", start);
        // A doubled quote is a quote inside the value.
        while (close !== -1 && statement.charCodeAt(close + 1) === QUOTE)
          close = statement.indexOf("'", close + 2);
        if (close === -1) return null;
        const value = statement.slice(start, close);
        if ((escape ? NOT_COPY_ESCAPE : NOT_COPY_STANDARD).test(value)) return null;
        fields.push(value.includes("'") ? value.replaceAll("''", "'") : value);
        at = close + 1;
        // Money, written as numeric and cast: COPY would read the text with the server's currency
        // format (a decimal comma in some locales), the cast does not. Such rows stay INSERTs.
        if (statement.startsWith('::', at)) return null;
      }
      skipSpace();
      if (statement[at] === ',') {
        at++;
        continue;
      }
      if (statement[at] !== ')') return null;
      at++;
      break;
    }
    if (fields.length !== width) return null;
    lines.push(fields.join('\t'));
    skipSpace();
    if (statement[at] === ',') {
      at++;
      skipSpace();
      continue;
    }
    if (statement[at] === ';' && at === end - 1) break;
    return null;
  }
  return { table: head[1]!, columns, text: `${lines.join('\n')}\n`, rows: lines.length };
}
