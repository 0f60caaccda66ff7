/**
 * A streaming JSON parser that validates every character but builds values only where asked: the
 * elements of one top-level array (a Bundle's `entry`) are handed out one at a time and dropped,
 * so a Bundle of any size parses in the memory of its largest entry. Strings, the bulk of FHIR,
 * are found with `indexOf` and decoded by `JSON.parse`; the character-level scan runs only to
 * explain a string `JSON.parse` refused. Syntax errors carry line and column.
 */
import { InputFault } from './fault.ts';
import { warn } from './warnings.ts';

export type JsonObject = { [key: string]: unknown };

export type JsonEvent = { kind: 'item'; value: unknown } | { kind: 'root'; value: unknown };

export interface JsonStreamOptions {
  /** Stream the elements of the array under this key of the root object, when `shouldSplit` agrees. */
  splitKey?: string;
  /** Sees the root object as parsed so far (keys before `splitKey`); true to stream the array. */
  shouldSplit?: (root: JsonObject) => boolean;
  /** Longest text one token may span (a string, a number), so a never-closed string cannot take all memory. */
  maxTokenChars?: number;
}

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

  constructor(options: JsonStreamOptions = {}) {
    this.#options = options;
  }

  /** Events completed by `text`. A syntax error is thrown on the next call, after the events before it are delivered. */
  push(text: string): JsonEvent[] {
    return this.#guard(() => {
      this.#text = this.#text.slice(this.#position) + text;
      this.#base += this.#position;
      this.#position = 0;
      this.#run(false);
      const limit = this.#options.maxTokenChars ?? 64 << 20;
      if (this.#text.length - this.#position > limit)
        this.#fail(`a single value is longer than ${limit} characters`);
    });
  }

  end(): JsonEvent[] {
    return this.#guard(() => {
      this.#run(true);
      if (this.#state !== 'done') this.#fail('unexpected end of input; the JSON is incomplete');
      this.#events.push({ kind: 'root', value: this.#root });
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
    if (char === '{') {
      this.#position++;
      this.#stack.push({ container: {}, key: '', split: false });
      this.#state = 'firstKey';
      return true;
    }
    if (char === '[') {
      this.#position++;
      const parent = this.#stack.length === 1 ? this.#stack[0]! : undefined;
      const split =
        parent !== undefined &&
        !Array.isArray(parent.container) &&
        parent.key === this.#options.splitKey &&
        (this.#options.shouldSplit?.(parent.container) ?? true);
      this.#stack.push({ container: [], key: '', split });
      this.#state = 'firstValue';
      return true;
    }
    if (char === '"') {
      const value = this.#string(final);
      if (value === null) return false;
      this.#emit(value);
      return true;
    }
    if (char === '-' || (char >= '0' && char <= '9')) {
      // The whole run of number characters must be buffered before it can be judged: `5e` may become `5e-3`.
      let runEnd = this.#position;
      while (runEnd < this.#text.length && NUMBER_CHARS.test(this.#text[runEnd]!)) runEnd++;
      if (runEnd === this.#text.length && !final) return false;
      NUMBER.lastIndex = this.#position;
      const match = NUMBER.exec(this.#text);
      if (match === null) this.#fail(`invalid number starting with ${describe(char)}`);
      const end = this.#position + match[0].length;
      if (end < runEnd) this.#fail('invalid number', end);
      this.#position = end;
      this.#emit(Number(match[0]));
      return true;
    }
    for (const [literal, value] of LITERALS) {
      if (char !== literal[0]) continue;
      const available = this.#text.slice(this.#position, this.#position + literal.length);
      if (available === literal) {
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
    let close = text.indexOf('"', start + 1);
    for (;;) {
      if (close === -1) {
        if (final) this.#fail('unterminated string', start);
        return null;
      }
      let backslashes = 0;
      while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes++;
      if (backslashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
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
    if (parent.split) this.#events.push({ kind: 'item', value });
    else if (Array.isArray(parent.container)) parent.container.push(value);
    else setKey(parent.container, parent.key, value);
    this.#state = 'afterValue';
  }
}

/** Parses one complete text; throws `JsonSyntaxFault`. For explaining texts that `JSON.parse` refused. */
export function parseJsonText(text: string): unknown {
  const parser = new JsonStreamParser();
  parser.push(text);
  return parser.end()[0]!.value;
}
