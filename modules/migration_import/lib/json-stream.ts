/**
 * A streaming JSON parser that validates every character but builds values only where asked: the
 * elements of one top-level array (a Bundle's `entry`) are handed out one at a time and dropped,
 * so a Bundle of any size parses in the memory of its largest entry. Strings, the bulk of FHIR,
 * are found with `indexOf` and decoded by `JSON.parse`; the character-level scan runs only to
 * explain a string `JSON.parse` refused. Syntax errors carry line and column.
 *
 * Work is linear in the input however it is chunked: a token still open at the end of a chunk (a
 * long string, a long number) keeps its chunks apart and is scanned only in each new chunk, with
 * the escape state carried across, then joined once when it ends. The parser itself is
 * synchronous; a caller feeding a large text should push it in slices (`inSlices`) so that the
 * event loop runs between them.
 *
 * Why not a library: the well-kept streaming parsers are slower at the parsing alone, before the
 * caps, notes and line/column errors below are added on top (bench/json-parsers.ts: 1.5 to 2.3x
 * this parser's time for @streamparser/json, 3.7 to 7x for stream-json, on a 13 MB Bundle), and
 * neither can keep them cheaply: @streamparser/json works on UTF-8 bytes (its offsets are not
 * columns) and reports no position for an error at the end of input, and stream-json says it is
 * not meant for untrusted input.
 */
import { InputFault } from './fault.ts';
import { warn } from './warnings.ts';

export type JsonObject = { [key: string]: unknown };

/**
 * Something the text says that its value cannot: a number no double holds exactly (`1e309`
 * becomes Infinity, `1e-400` zero, `12345678901234567890` another integer), or a key given twice
 * in one object (the value keeps the last). `pointer` is a JSON pointer into the item (or root).
 */
export interface JsonNote {
  kind: 'number' | 'duplicate_key';
  pointer: string;
  text: string;
}

/** Notes kept per item; a hostile entry cannot grow the list beyond this. */
const MAX_NOTES = 20;

export type JsonEvent =
  { kind: 'item'; value: unknown; notes?: JsonNote[] } | { kind: 'root'; value: unknown; notes?: JsonNote[] };

export interface JsonStreamOptions {
  /** Stream the elements of the array under this key of the root object, when `shouldSplit` agrees. */
  splitKey?: string;
  /** Sees the root object as parsed so far (keys before `splitKey`); true to stream the array. */
  shouldSplit?: (root: JsonObject) => boolean;
  /** Longest text one token may span (a string, a number), so a never-closed string cannot take all memory. Default 4 MiB. */
  maxTokenChars?: number;
  /** Longest string under a `data` key (FHIR's inline base64 content); default `maxTokenChars`. */
  maxDataChars?: number;
  /** Longest text one streamed item (a Bundle entry), or an unsplit root, may span. Default 64 MiB. */
  maxItemChars?: number;
  /** Most values (objects, arrays, strings, numbers, literals) one item, or an unsplit root, may hold. Default 1,000,000. */
  maxItemValues?: number;
}

export const DEFAULT_MAX_TOKEN_CHARS = 4 << 20;
export const DEFAULT_MAX_ITEM_CHARS = 64 << 20;
/**
 * The character cap alone does not bound memory: a built value costs far more than its text (an
 * empty object, 3 characters with its comma, takes some 80 bytes of heap), so 64 MiB of `{},`
 * would need close to 2 GB. A million values, a hundred times what the largest entry of a Synthea
 * patient holds, keep any one item within about 100 MB; lowering the character cap instead would
 * refuse long texts that cost little, such as inline content.
 */
export const DEFAULT_MAX_ITEM_VALUES = 1_000_000;

/** Characters handed to the parser at a time by `inSlices`, between turns of the event loop. */
export const SLICE_CHARS = 1 << 16;

/**
 * `chunks` cut into slices of at most `size` characters, with a turn of the event loop
 * (`setImmediate`) before each slice but the first, so that parsing a large text in one process
 * never holds up other requests for longer than one slice takes.
 */
export async function* inSlices(chunks: AsyncIterable<string>, size = SLICE_CHARS): AsyncGenerator<string> {
  let first = true;
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += size) {
      if (!first) await new Promise((resolve) => setImmediate(resolve));
      first = false;
      yield chunk.length <= size ? chunk : chunk.slice(at, at + size);
    }
  }
}

/** Whether `literal` is a JSON number a double cannot hold as written. */
function inexact(literal: string, value: number): boolean {
  if (!Number.isFinite(value)) return true;
  const mantissa = literal.split(/[eE]/)[0]!;
  if (value === 0) return /[1-9]/.test(mantissa);
  // An integer past 2^53 stands for its double only when it is how that double is written (as
  // JSON.stringify writes it); 12345678901234567890 is not, it reads as 12345678901234567000.
  return /^-?\d+$/.test(literal) && !Number.isSafeInteger(value) && String(value) !== literal;
}

const escapePointer = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** A syntax error; `row` of its warning is left to the reader. */
export class JsonSyntaxFault extends InputFault {
  readonly column: number;
  readonly detail: string;

  constructor(line: number, column: number, detail: string) {
    super(line, (at) => warn.jsonSyntax(at, line, column, detail));
    this.column = column;
    this.detail = detail;
  }
}

interface Frame {
  container: JsonObject | unknown[];
  key: string;
  split: boolean;
}

type State = 'value' | 'firstValue' | 'key' | 'firstKey' | 'colon' | 'afterValue' | 'done';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NUMBER_CHARS = /[-+.eE0-9]/;
const LITERALS: ReadonlyArray<[string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];

function describe(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f
    ? `control character U+${code.toString(16).padStart(4, '0').toUpperCase()}`
    : `'${char}'`;
}

/** Sets like `JSON.parse` does: `__proto__` becomes an own key, not the prototype. */
function setKey(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

export class JsonStreamParser {
  #text = '';
  #position = 0;
  /** Offset in the whole input of `#text[0]`; offsets below are absolute. */
  #base = 0;
  #line = 1;
  #lineStart = 0;
  #state: State = 'value';
  #stack: Frame[] = [];
  #root: unknown;
  #events: JsonEvent[] = [];
  #fault: JsonSyntaxFault | undefined;
  readonly #options: JsonStreamOptions;
  /** The token at `#position` whose end has not arrived yet, if any. */
  #pending: 'string' | 'number' | null = null;
  /** Chunks of the pending token after `#text`: kept apart, scanned once each, joined once when it ends. */
  #waiting: string[] = [];
  #waitingChars = 0;
  /** For a pending string: the text scanned so far ends in an odd run of backslashes (escapes the next character). */
  #escaped = false;
  /** Absolute offset of the pending string's closing quote, once a chunk brought it, or -1. */
  #knownClose = -1;
  /** Characters examined while looking for the end of strings and numbers. */
  #scanned = 0;
  /** Absolute offset where the item being built began, or -1. */
  #itemStart = -1;
  #itemValues = 0;
  #rootValues = 0;
  #splitSeen = false;
  #notes: JsonNote[] = [];

  constructor(options: JsonStreamOptions = {}) {
    this.#options = options;
  }

  /**
   * Characters examined so far while looking for where strings and numbers end: at most a small
   * multiple of the input's length however it was chunked (each character is scanned once while
   * its token is pending and once more when the token is read whole).
   */
  get scannedChars(): number {
    return this.#scanned;
  }

  /** Events completed by `text`. A syntax error is thrown on the next call, after the events before it are delivered. */
  push(text: string): JsonEvent[] {
    return this.#guard(() => {
      if (this.#pending !== null) {
        const end = this.#pending === 'string' ? this.#findClose(text) : this.#numberEnd(text);
        if (end === -1) {
          this.#waiting.push(text);
          this.#waitingChars += text.length;
          this.#checkLimits();
          return;
        }
        if (this.#pending === 'string')
          this.#knownClose = this.#base + this.#text.length + this.#waitingChars + end;
        text = this.#waiting.join('') + text;
        this.#waiting = [];
        this.#waitingChars = 0;
        this.#pending = null;
      }
      this.#text = this.#text.slice(this.#position) + text;
      this.#base += this.#position;
      this.#position = 0;
      this.#run(false);
      this.#checkLimits();
    });
  }

  /** Where in `chunk` the pending string closes (an unescaped quote), or -1; carries the escape state on. */
  #findClose(chunk: string): number {
    for (let from = 0; ;) {
      const quote = chunk.indexOf('"', from);
      if (quote === -1) {
        this.#scanned += chunk.length - from;
        const run = this.#backslashesBefore(chunk, chunk.length);
        this.#escaped = run === chunk.length ? this.#escaped !== (run % 2 === 1) : run % 2 === 1;
        return -1;
      }
      this.#scanned += quote + 1 - from;
      const run = this.#backslashesBefore(chunk, quote);
      const odd = (run === quote && this.#escaped ? run + 1 : run) % 2 === 1;
      if (!odd) return quote;
      from = quote + 1;
    }
  }

  /** The length of the run of backslashes that ends just before `end` in `text`. */
  #backslashesBefore(text: string, end: number, start = 0): number {
    let run = 0;
    while (end - 1 - run >= start && text.charCodeAt(end - 1 - run) === 92) run++;
    this.#scanned += run;
    return run;
  }

  /** Where in `chunk` the pending number's run of number characters ends, or -1. */
  #numberEnd(chunk: string): number {
    let at = 0;
    while (at < chunk.length && NUMBER_CHARS.test(chunk[at]!)) at++;
    this.#scanned += at;
    return at < chunk.length ? at : -1;
  }

  /** Counts a value of the item (or the root) being built, within its cap. */
  #count(at = this.#position): void {
    const limit = this.#options.maxItemValues ?? DEFAULT_MAX_ITEM_VALUES;
    if (this.#itemStart >= 0) {
      if (++this.#itemValues > limit) this.#fail(`an entry holds more than ${limit} values`, at);
    } else if (++this.#rootValues > limit) {
      this.#fail(`the JSON holds more than ${limit} values outside a Bundle's entries`, at);
    }
  }

  /** The pending token within its limit (a `data` string has its own), the item being built within its. */
  #checkLimits(): void {
    const pending = this.#text.length - this.#position + this.#waitingChars;
    const limit = this.#tokenLimit();
    if (pending > limit) this.#fail(`a single value is longer than ${limit} characters`);
    const itemLimit = this.#options.maxItemChars ?? DEFAULT_MAX_ITEM_CHARS;
    const start =
      this.#itemStart >= 0 ? this.#itemStart : this.#splitSeen || this.#stack.length === 0 ? -1 : 0;
    const end = this.#base + this.#text.length + this.#waitingChars;
    if (start >= 0 && end - start > itemLimit)
      this.#fail(
        this.#itemStart >= 0
          ? `an entry is longer than ${itemLimit} characters`
          : `the JSON is longer than ${itemLimit} characters outside a Bundle's entries`,
      );
  }

  /** The cap of the token at hand: a string under a `data` key has its own. */
  #tokenLimit(): number {
    const top = this.#stack[this.#stack.length - 1];
    const isData =
      this.#state === 'value' && top !== undefined && !Array.isArray(top.container) && top.key === 'data';
    const tokenLimit = this.#options.maxTokenChars ?? DEFAULT_MAX_TOKEN_CHARS;
    return isData ? (this.#options.maxDataChars ?? tokenLimit) : tokenLimit;
  }

  /** The pointer, inside the current item (or the root), of the value about to be set, or of `key`. */
  #pointer(key?: string): string {
    let from = 0;
    for (let index = this.#stack.length - 1; index >= 0; index--)
      if (this.#stack[index]!.split) {
        from = index + 1;
        break;
      }
    const parts = this.#stack.slice(from).map((frame, index, frames) => {
      if (index === frames.length - 1 && key !== undefined) return escapePointer(key);
      return Array.isArray(frame.container) ? String(frame.container.length) : escapePointer(frame.key);
    });
    return parts.map((part) => `/${part}`).join('');
  }

  #note(kind: JsonNote['kind'], text: string, key?: string): void {
    if (this.#notes.length < MAX_NOTES)
      this.#notes.push({
        kind,
        pointer: this.#pointer(key),
        text: text.length > 80 ? `${text.slice(0, 77)}...` : text,
      });
  }

  end(): JsonEvent[] {
    return this.#guard(() => {
      if (this.#pending !== null) {
        this.#text = this.#text.slice(this.#position) + this.#waiting.join('');
        this.#base += this.#position;
        this.#position = 0;
        this.#waiting = [];
        this.#waitingChars = 0;
        this.#pending = null;
      }
      this.#run(true);
      if (this.#state !== 'done') this.#fail('unexpected end of input; the JSON is incomplete');
      this.#events.push({ kind: 'root', value: this.#root, ...this.#takeNotes() });
    });
  }

  #guard(step: () => void): JsonEvent[] {
    if (this.#fault !== undefined) throw this.#fault;
    try {
      step();
    } catch (error) {
      if (!(error instanceof JsonSyntaxFault) || this.#events.length === 0) throw error;
      this.#fault = error;
    }
    return this.#take();
  }

  #take(): JsonEvent[] {
    const events = this.#events;
    this.#events = [];
    return events;
  }

  #fail(detail: string, at = this.#position): never {
    throw new JsonSyntaxFault(this.#line, this.#base + at - this.#lineStart + 1, detail);
  }

  #skipWhitespace(): void {
    const text = this.#text;
    let position = this.#position;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 10) {
        this.#line++;
        this.#lineStart = this.#base + position + 1;
      } else if (code !== 32 && code !== 9 && code !== 13) break;
      position++;
    }
    this.#position = position;
  }

  /** Parses as far as the text allows; stops, keeping the unread rest, where a token may continue. */
  #run(final: boolean): void {
    for (;;) {
      this.#skipWhitespace();
      if (this.#position >= this.#text.length) return;
      const char = this.#text[this.#position]!;
      if (this.#state === 'done') this.#fail(`unexpected ${describe(char)} after the end of the JSON value`);
      switch (this.#state) {
        case 'firstKey':
        case 'key': {
          if (this.#state === 'firstKey' && char === '}') {
            this.#position++;
            this.#close();
            break;
          }
          if (char !== '"') this.#fail(`expected a property name in double quotes, found ${describe(char)}`);
          const key = this.#string(final);
          if (key === null) return;
          const object = this.#top().container as JsonObject;
          if (Object.hasOwn(object, key)) this.#note('duplicate_key', key, key);
          this.#top().key = key;
          this.#state = 'colon';
          break;
        }
        case 'colon':
          if (char !== ':') this.#fail(`expected ':' after a property name, found ${describe(char)}`);
          this.#position++;
          this.#state = 'value';
          break;
        case 'afterValue':
          this.#afterValue(char);
          break;
        case 'firstValue':
        case 'value':
          if (this.#state === 'firstValue' && char === ']') {
            this.#position++;
            this.#close();
            break;
          }
          if (!this.#value(char, final)) return;
          break;
      }
    }
  }

  #afterValue(char: string): void {
    const inArray = Array.isArray(this.#top().container);
    if (char === ',') {
      this.#position++;
      this.#state = inArray ? 'value' : 'key';
    } else if (char === (inArray ? ']' : '}')) {
      this.#position++;
      this.#close();
    } else if (inArray) {
      this.#fail(`expected ',' or ']' after an array element, found ${describe(char)}`);
    } else {
      this.#fail(`expected ',' or '}' after a property value, found ${describe(char)}`);
    }
  }

  #top(): Frame {
    return this.#stack[this.#stack.length - 1]!;
  }

  /** Reads or opens the value starting with `char`; false when it needs more text. */
  #value(char: string, final: boolean): boolean {
    if (this.#stack[this.#stack.length - 1]?.split === true && this.#itemStart < 0) {
      this.#itemStart = this.#base + this.#position;
      this.#itemValues = 0;
    }
    if (char === '{') {
      this.#count();
      this.#position++;
      this.#stack.push({ container: {}, key: '', split: false });
      this.#state = 'firstKey';
      return true;
    }
    if (char === '[') {
      this.#count();
      this.#position++;
      const parent = this.#stack.length === 1 ? this.#stack[0]! : undefined;
      const split =
        parent !== undefined &&
        !Array.isArray(parent.container) &&
        parent.key === this.#options.splitKey &&
        (this.#options.shouldSplit?.(parent.container) ?? true);
      if (split) this.#splitSeen = true;
      this.#stack.push({ container: [], key: '', split });
      this.#state = 'firstValue';
      return true;
    }
    if (char === '"') {
      const start = this.#position;
      const value = this.#string(final);
      if (value === null) return false;
      this.#count(start);
      this.#emit(value);
      return true;
    }
    if (char === '-' || (char >= '0' && char <= '9')) {
      // The whole run of number characters must be buffered before it can be judged: `5e` may become `5e-3`.
      let runEnd = this.#position;
      while (runEnd < this.#text.length && NUMBER_CHARS.test(this.#text[runEnd]!)) runEnd++;
      this.#scanned += runEnd - this.#position;
      if (runEnd === this.#text.length && !final) {
        this.#pending = 'number';
        return false;
      }
      NUMBER.lastIndex = this.#position;
      const match = NUMBER.exec(this.#text);
      if (match === null) this.#fail(`invalid number starting with ${describe(char)}`);
      const end = this.#position + match[0].length;
      if (end < runEnd) this.#fail('invalid number', end);
      this.#count();
      this.#position = end;
      const value = Number(match[0]);
      if (inexact(match[0], value)) this.#note('number', match[0]);
      this.#emit(value);
      return true;
    }
    for (const [literal, value] of LITERALS) {
      if (char !== literal[0]) continue;
      const available = this.#text.slice(this.#position, this.#position + literal.length);
      if (available === literal) {
        this.#count();
        this.#position += literal.length;
        this.#emit(value);
        return true;
      }
      if (literal.startsWith(available) && !final) return false;
      if (literal.startsWith(available))
        this.#fail('unexpected end of input; the JSON is incomplete', this.#text.length);
    }
    return this.#fail(`unexpected ${describe(char)}`);
  }

  /** The string starting at the current quote, or null when its end is not buffered yet. */
  #string(final: boolean): string | null {
    const text = this.#text;
    const start = this.#position;
    let close: number;
    if (this.#knownClose >= 0) {
      // The chunk that closed this string was scanned already; the rest of it need not be again.
      close = this.#knownClose - this.#base;
      this.#knownClose = -1;
    } else {
      close = this.#find(text, start + 1);
      for (;;) {
        if (close === -1) {
          if (final) this.#fail('unterminated string', start);
          // Keep the escape state of what was scanned; later chunks are scanned on from there.
          this.#escaped = this.#backslashesBefore(text, text.length, start + 1) % 2 === 1;
          this.#pending = 'string';
          return null;
        }
        if (this.#backslashesBefore(text, close, start + 1) % 2 === 0) break;
        close = this.#find(text, close + 1);
      }
    }
    // A string that arrived whole within one chunk is held to the same cap as one still arriving.
    const limit = this.#tokenLimit();
    if (close + 1 - start > limit) this.#fail(`a single value is longer than ${limit} characters`, start);
    const raw = text.slice(start, close + 1);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.#explainString(raw, start);
    }
    this.#position = close + 1;
    return value as string;
  }

  /** The next quote in `text` from `from`, or -1, counting the characters passed over. */
  #find(text: string, from: number): number {
    const quote = text.indexOf('"', from);
    this.#scanned += (quote === -1 ? text.length : quote + 1) - from;
    return quote;
  }

  /** Names what `JSON.parse` refused in a string: a control character or a bad escape. */
  #explainString(raw: string, start: number): never {
    for (let index = 1; index < raw.length - 1; index++) {
      const code = raw.charCodeAt(index);
      if (code < 0x20) this.#fail(`${describe(raw[index]!)} inside a string; escape it`, start + index);
      if (code !== 92) continue;
      const escape = raw[index + 1]!;
      if (escape === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(raw.slice(index + 2, index + 6)))
          this.#fail('invalid \\u escape', start + index);
        index += 5;
      } else if ('"\\/bfnrt'.includes(escape)) {
        index++;
      } else {
        this.#fail(`invalid escape '\\${escape}'`, start + index);
      }
    }
    return this.#fail('invalid string', start);
  }

  #takeNotes(): { notes?: JsonNote[] } {
    if (this.#notes.length === 0) return {};
    const notes = this.#notes;
    this.#notes = [];
    return { notes };
  }

  #close(): void {
    const frame = this.#stack.pop()!;
    this.#emit(frame.split ? [] : frame.container);
  }

  #emit(value: unknown): void {
    const parent = this.#stack[this.#stack.length - 1];
    if (parent === undefined) {
      this.#root = value;
      this.#state = 'done';
      return;
    }
    if (parent.split) {
      this.#events.push({ kind: 'item', value, ...this.#takeNotes() });
      this.#itemStart = -1;
    } else if (Array.isArray(parent.container)) parent.container.push(value);
    else setKey(parent.container, parent.key, value);
    this.#state = 'afterValue';
  }
}

/** Parses one complete text; throws `JsonSyntaxFault`. For explaining texts that `JSON.parse` refused. */
export function parseJsonText(text: string): unknown {
  return parseJsonNoted(text).value;
}

/** Parses one complete text with what its value cannot say (`JsonNote`); throws `JsonSyntaxFault`. */
export function parseJsonNoted(
  text: string,
  options: JsonStreamOptions = {},
): { value: unknown; notes: JsonNote[] } {
  const parser = new JsonStreamParser(options);
  parser.push(text);
  const events = parser.end();
  const root = events[events.length - 1]!;
  return { value: root.value, notes: root.notes ?? [] };
}
