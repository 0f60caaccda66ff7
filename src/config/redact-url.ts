/**
 * A database URL as messages, logs and `ward config` show it: the password, whether in the
 * userinfo (`postgres://user:pw@host`) or in the query (`?password=pw`, which libpq and pg also
 * read), is `***`. Parsed as a URL rather than matched as text, so a password holding `@` or `:`
 * is masked whole.
 */
export const MASK = '***';

export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Where the password would be cannot be told: show none of it.
    return '<unparsable URL>';
  }
  if (parsed.password !== '') parsed.password = MASK;
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', MASK);
  return parsed.toString();
}
