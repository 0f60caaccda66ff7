/**
 * PostgreSQL's error texts can quote the value that failed (`invalid input syntax for type
 * integer: "Quilla"`, `value "99999999999" is out of range`, `syntax error at or near "Smith"`),
 * and their DETAIL, HINT and CONTEXT fields can hold whole rows (`Key (mrn)=(…) already exists`,
 * `Failing row contains (…)`). A log line must carry no patient value, so before an error is
 * logged its PostgreSQL parts are rewritten: every quoted text in the server's message that is not
 * one of the error's own identifiers (table, column, constraint, schema, type) becomes `"…"`,
 * byte sequences become `0x…`, and the fields that hold values are left out. What says where and
 * why stays: the SQLSTATE code, severity, schema, table, column, type, constraint, and the server's
 * routine, file and line. The SQL text knex puts in front of the message holds placeholders,
 * never values, and stays when it was noted (`noteFailedQuery`); un-noted, the whole message is
 * redacted. The error itself is not changed: a copy is logged.
 */

/** The fields of a PostgreSQL error (pg's DatabaseError) that may hold values: never logged. */
const VALUE_FIELDS = ['detail', 'hint', 'where', 'internalQuery', 'internalPosition'];

/** Its identifier fields: quoted in a message, they are names, not values. */
const IDENTIFIER_FIELDS = ['schema', 'table', 'column', 'dataType', 'constraint'];

type Loose = Record<string, unknown>;

/** pg's DatabaseError: a five-character SQLSTATE and a severity, as the server sends them. */
export function isDatabaseError(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as Loose;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

/** Pure: `text` with quoted values and byte sequences replaced; `identifiers` are kept. */
export function redactQuoted(text: string, identifiers: ReadonlySet<string>): string {
  // The server does not escape a quote inside a quoted value (`"5"Smith"`): so the identifiers are
  // set aside first, then everything from the first quote left on a line to its last goes, and a
  // quote left alone takes the rest of its line with it.
  const kept: string[] = [];
  const aside = text.replace(/"((?:[^"\n]|"")*)"/g, (quoted, inner: string) =>
    identifiers.has(inner) ? `\uE000${kept.push(quoted) - 1}\uE000` : quoted,
  );
  return aside
    .split('\n')
    .map((line) => {
      const first = line.indexOf('"');
      const last = line.lastIndexOf('"');
      if (first === -1) return line;
      return first === last
        ? `${line.slice(0, first)}"…`
        : `${line.slice(0, first)}"…"${line.slice(last + 1)}`;
    })
    .join('\n')
    .replace(/\uE000(\d+)\uE000/g, (token, index: string) => kept[Number(index)] ?? token)
    .replace(/0x[0-9a-f]{2}(?:\s+0x[0-9a-f]{2})*/gi, '0x…');
}

const STACK_FRAMES = /\n\s+at /;

/** The SQL knex (or queryOnce) put in front of an error's message, noted when it did. */
const queryPrefixes = new WeakMap<object, string>();

/**
 * Notes that `error`'s message now starts with `sql` and ` - `: that part was written by Ward,
 * with placeholders for values, and is logged as it is. knex's `query-error` event calls this.
 */
export function noteFailedQuery(error: unknown, sql: string): void {
  if (error !== null && typeof error === 'object') queryPrefixes.set(error, `${sql} - `);
}

/** The SQL prefix and the server's own message; without a noted prefix, all of it is the server's. */
function split(error: Error): { prefix: string; server: string } {
  const prefix = queryPrefixes.get(error);
  return prefix !== undefined && error.message.startsWith(prefix)
    ? { prefix, server: error.message.slice(prefix.length) }
    : { prefix: '', server: error.message };
}

function redactDatabaseError(error: Error & Loose): Error {
  const identifiers = new Set(
    IDENTIFIER_FIELDS.map((field) => error[field]).filter(
      (value): value is string => typeof value === 'string',
    ),
  );
  const { prefix, server } = split(error);
  const message = `${prefix}${redactQuoted(server, identifiers)}`;
  const frames = STACK_FRAMES.exec(error.stack ?? '');
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & Loose;
  for (const [key, value] of Object.entries(error)) if (!VALUE_FIELDS.includes(key)) copy[key] = value;
  Object.defineProperty(copy, 'message', { value: message, enumerable: false, writable: true });
  const stack =
    frames === null
      ? `${error.name}: ${message}`
      : `${error.name}: ${message}${error.stack!.slice(frames.index)}`;
  Object.defineProperty(copy, 'stack', { value: stack, enumerable: false, writable: true });
  return copy;
}

/**
 * Pure: `error` as it may be logged: itself when no PostgreSQL error is in it, else a copy in which
 * each PostgreSQL error (itself, a cause, one of an AggregateError's) is redacted.
 */
export function loggableError(error: unknown, seen: Set<unknown> = new Set()): unknown {
  if (error === null || typeof error !== 'object' || seen.has(error)) return error;
  seen.add(error);
  if (isDatabaseError(error) && error instanceof Error) return redactDatabaseError(error as Error & Loose);
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  const safeCause = loggableError(cause, seen);
  const safeErrors = Array.isArray(errors) ? errors.map((inner) => loggableError(inner, seen)) : errors;
  const unchanged =
    safeCause === cause &&
    (!Array.isArray(errors) || (safeErrors as unknown[]).every((inner, index) => inner === errors[index]));
  if (unchanged) return error;
  const copy = Object.create(
    Object.getPrototypeOf(error) as object,
    Object.getOwnPropertyDescriptors(error),
  ) as Loose;
  if (safeCause !== cause)
    Object.defineProperty(copy, 'cause', { value: safeCause, enumerable: false, writable: true });
  if (safeErrors !== errors)
    Object.defineProperty(copy, 'errors', { value: safeErrors, enumerable: false, writable: true });
  return copy;
}
