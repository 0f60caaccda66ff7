/**
 * The only two ways a name or a value enters the SQL that backups write: `quoteIdentifier` and
 * `sqlLiteral`. Both produce text PostgreSQL reads back as exactly the input, whatever it holds.
 */

/** PostgreSQL's NAMEDATALEN - 1: longer names are silently truncated, which would name another table. */
const MAX_IDENTIFIER_BYTES = 63;

/** Characters that need an escape string: backslash and C0 controls (see sqlLiteral). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NEEDS_ESCAPE_STRING = /[\\\x00-\x1f]/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ESCAPED_IN_E_STRING = /[\\'\x00-\x1f]/g;

const E_STRING_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "''",
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

export function isIdentifier(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    !name.includes('\0') &&
    Buffer.byteLength(name, 'utf8') <= MAX_IDENTIFIER_BYTES
  );
}

/** `"name"` with inner quotes doubled; refuses what PostgreSQL would reject or truncate. */
export function quoteIdentifier(name: string): string {
  if (!isIdentifier(name))
    throw new Error(
      `${JSON.stringify(name)} is not a PostgreSQL identifier (1 to ${MAX_IDENTIFIER_BYTES} bytes, no NUL)`,
    );
  return `"${name.replaceAll('"', '""')}"`;
}

/** Inverse of quoteIdentifier, for reading names back out of a backup file. */
export function unquoteIdentifier(quoted: string): string {
  if (!/^"(?:[^"]|"")+"$/.test(quoted)) throw new Error(`${quoted} is not a quoted identifier`);
  return quoted.slice(1, -1).replaceAll('""', '"');
}

/**
 * A SQL literal whose value is `value`, or NULL. Text without backslashes or control characters
 * becomes a standard string ('' doubling), read the same whatever standard_conforming_strings says.
 * Anything else becomes an E'' string in which every control character is an escape: the file then
 * never has a line break inside a value, so line-ending conversion by an editor or a transfer tool
 * can break a restore but never silently change a value.
 */
export function sqlLiteral(value: string | null): string {
  if (value === null) return 'NULL';
  if (!NEEDS_ESCAPE_STRING.test(value)) return `'${value.replaceAll("'", "''")}'`;
  if (value.includes('\0')) throw new Error('PostgreSQL text cannot hold a NUL character');
  return `E'${value.replace(ESCAPED_IN_E_STRING, escapeCharacter)}'`;
}

function escapeCharacter(character: string): string {
  // Two hex digits always: a following hex digit must not be read as part of the escape.
  return E_STRING_ESCAPES[character] ?? `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`;
}
