/**
 * A settings file (`<storage>/ward.env`, `<root>/.env`) in dotenv syntax: `KEY=value` lines, `#`
 * comments, an optional `export ` and optional quotes. Values are read by Node's own dotenv parser
 * (util.parseEnv); this file only checks each line first, because that parser skips what it cannot
 * read without a word and cuts some values short (`KEY='it's'` gives `it`, `KEY=a#b` gives `a`):
 * a line it would misread is an error naming the file and line. Values do not span lines.
 */
import { parseEnv } from 'node:util';
import { WardError } from '../errors/ward-error.ts';

export interface EnvFileEntry {
  key: string;
  value: string;
  /** 1-based. */
  line: number;
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(\s*)(.*)$/;
/** The start of a line that is shown in an error: a name, never what follows it (a secret). */
const NAME_LIKE = /^[A-Za-z0-9_.-]{1,64}$/;
/** What may follow a closing quote: blanks and a comment. */
const AFTER_QUOTE = /^\s*(?:#.*)?$/;

/** Every assignment in `text`, in file order (a key may repeat); throws at the first bad line. */
export function parseEnvFile(text: string, file: string): EnvFileEntry[] {
  const entries: EnvFileEntry[] = [];
  for (const [index, raw] of text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .entries()) {
    const line = index + 1;
    if (/^\s*(#.*)?$/.test(raw)) continue;
    const match = ASSIGNMENT.exec(raw);
    if (match === null) throw malformed(file, line, `expected KEY=value, ${shownStart(raw)}`);
    const [, key = '', blank = '', value = ''] = match;
    const problem = valueProblem(value.trimEnd(), blank !== '');
    if (problem !== null) throw malformed(file, line, `${key}: ${problem}`);
    entries.push({ key, value: parseEnv(`${key}=${value}`)[key] ?? '', line });
  }
  return entries;
}

/** Names the line by its first word when that looks like a setting's name; shows no value. */
function shownStart(raw: string): string {
  const first = /^[^\s=]*/.exec(raw.trim())?.[0] ?? '';
  return NAME_LIKE.test(first)
    ? `found a line starting ${JSON.stringify(first)} (the rest is not shown: it may hold a secret)`
    : 'found a line that does not start with a name (not shown: it may hold a secret)';
}

/** `afterBlank`: the value is separated from `=` by blanks (`KEY= # note` is a comment). */
function valueProblem(value: string, afterBlank: boolean): string | null {
  const quote = value[0];
  if (quote === '"' || quote === "'" || quote === '`') {
    const closing = value.indexOf(quote, 1);
    if (closing === -1) return `the ${quote} quote is not closed (a value cannot span lines)`;
    return AFTER_QUOTE.test(value.slice(closing + 1)) ? null : `text after the closing ${quote} quote`;
  }
  // Right after `=`, the dotenv parser reads `#` as a comment and the value as empty.
  if (value.startsWith('#') && !afterBlank)
    return 'an unquoted value cannot start with # (it would be read as a comment, leaving the value empty): quote the value';
  // Unquoted, `#` starts a comment only after a blank; anywhere else the value would be cut there.
  if (/[^\s]#/.test(value) && !value.startsWith('#'))
    return 'a # in an unquoted value starts a comment and cuts the value short: quote the value';
  return null;
}

function malformed(file: string, line: number, what: string): WardError {
  return new WardError(
    'invalid_settings_file',
    `${file}:${line}: ${what}`,
    'write one setting per line as KEY=value (# starts a comment; quote a value that holds # or quotes: KEY="value"), then run `ward config` to check',
  );
}
