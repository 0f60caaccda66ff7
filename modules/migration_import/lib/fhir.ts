/**
 * FHIR R4 readers. JSON: a Bundle of any type (transaction, batch, collection, searchset: its
 * `entry` streamed, one entry in memory at a time) or a single
 * resource; a syntax error ends the read with one warning. NDJSON (FHIR bulk data): a resource or
 * a Bundle per line; a broken line is one warning and reading goes on, since lines stand alone.
 * Resource types not imported are counted and reported once per type, as `info`, at the end.
 */
import { decodeUtf8 } from './decode.ts';
import { InputFault, stopAtFault } from './fault.ts';
import { asObject, FullUrls, mapResource } from './fhir-map.ts';
import {
  DEFAULT_MAX_ITEM_CHARS,
  inSlices,
  JsonStreamParser,
  JsonSyntaxFault,
  type JsonEvent,
  type JsonNote,
  type JsonStreamOptions,
} from './json-stream.ts';
import type { ByteSource, ReadOptions, SourceItem } from './records.ts';
import { warn } from './warnings.ts';

/** Distinct skipped types remembered; a hostile file cannot grow this beyond a handful of entries. */
const MAX_SKIPPED_TYPES = 100;

class ResourceMapper {
  readonly #skipped = new Map<string, { row: number; count: number }>();
  readonly #urls = new FullUrls();

  /** Items of one resource; a Bundle's own entries are mapped in turn, their fields prefixed by `at`. */
  *map(value: unknown, row: number, at: string, what: string, fullUrl?: string): Generator<SourceItem> {
    const resource = asObject(value);
    if (resource?.resourceType === 'Bundle') {
      const entries = Array.isArray(resource.entry) ? resource.entry : [];
      for (const [index, entry] of entries.entries()) {
        const item = asObject(entry);
        const fullUrl = typeof item?.fullUrl === 'string' ? item.fullUrl : undefined;
        const path = `${at}/entry/${index}/resource`;
        if (this.#request(item, row)) continue;
        yield* this.map(item?.resource, row, path, `entry ${index + 1} of ${what}`, fullUrl);
      }
      return;
    }
    const mapped = mapResource(value, fullUrl, this.#urls);
    if (mapped.kind === 'not-a-resource') {
      yield { kind: 'warning', warning: warn.notAResource({ row, field: at }, what) };
    } else if (mapped.kind === 'unsupported') {
      this.#skip(mapped.resourceType, row);
    } else {
      yield { ...mapped, row, ...(at === '' ? {} : { at }) } as SourceItem;
    }
  }

  /**
   * True for an entry of a transaction or batch that is a request without a resource (a DELETE,
   * a conditional GET): nothing to import, so it is counted with the skipped types.
   */
  entryIsRequest(entry: ReturnType<typeof asObject>, row: number): boolean {
    return this.#request(entry, row);
  }

  #request(entry: ReturnType<typeof asObject>, row: number): boolean {
    const request = asObject(entry?.request);
    if (entry?.resource !== undefined || request === undefined) return false;
    const method = typeof request.method === 'string' ? request.method.slice(0, 10) : '?';
    this.#skip(`${method} request without a resource`, row);
    return true;
  }

  #skip(resourceType: string, row: number): void {
    const type =
      this.#skipped.has(resourceType) || this.#skipped.size < MAX_SKIPPED_TYPES ? resourceType : 'other';
    const seen = this.#skipped.get(type);
    if (seen === undefined) this.#skipped.set(type, { row, count: 1 });
    else seen.count++;
  }

  *skipped(): Generator<SourceItem> {
    for (const [type, { row, count }] of this.#skipped) {
      yield { kind: 'warning', warning: warn.unsupportedResource({ row }, type, count) };
    }
  }
}

/**
 * Inline content read when the caller names no document limit: the documents module's default
 * limit. Only a bound on what the reader holds in memory; whether a document is too large is
 * validation's to say, with the documents module's own limit (rules.ts).
 */
const READ_MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

/** The parser's limits for `options`: inline content may be as long as the largest document in base64. */
function limits(options: ReadOptions): JsonStreamOptions {
  const maxBytes = options.maxDocumentBytes ?? READ_MAX_DOCUMENT_BYTES;
  // base64 is 4 characters per 3 bytes, a line break every 76 characters adds some more; twice
  // that, so content somewhat over the limit is read and reported as such (content_too_large).
  const maxDataChars = 2 * Math.ceil(maxBytes / 3) * 4 * (77 / 76) + 1024;
  return {
    maxTokenChars: options.maxTokenChars,
    maxDataChars: Math.max(Math.ceil(maxDataChars), options.maxTokenChars ?? 0),
    maxItemChars: options.maxEntryChars,
    maxItemValues: options.maxEntryValues,
  };
}

/** Warnings of what the JSON text says that its values cannot. */
function* noted(notes: readonly JsonNote[] | undefined, row: number): Generator<SourceItem> {
  for (const note of notes ?? []) {
    const field = note.pointer.replace(/^\/resource(?=\/|$)/, '');
    yield {
      kind: 'warning',
      warning:
        note.kind === 'number'
          ? warn.inexactNumber({ row, field }, note.text)
          : warn.duplicateKey({ row, field }, note.text),
    };
  }
}

export async function* readFhirJson(
  source: ByteSource,
  options: ReadOptions = {},
): AsyncGenerator<SourceItem> {
  const mapper = new ResourceMapper();
  let entries = 0;
  async function* read(): AsyncGenerator<SourceItem> {
    const parser = new JsonStreamParser({
      splitKey: 'entry',
      // Only a Bundle's entries are resources; another resource's `entry` (a List's) is plain data.
      shouldSplit: (root) => root.resourceType === undefined || root.resourceType === 'Bundle',
      ...limits(options),
    });
    const events = async function* () {
      for await (const text of inSlices(decodeUtf8(source))) yield* parser.push(text);
      yield* parser.end();
    };
    for await (const event of events()) {
      if (event.kind === 'item') {
        entries++;
        const entry = asObject(event.value);
        const fullUrl = typeof entry?.fullUrl === 'string' ? entry.fullUrl : undefined;
        yield* noted(event.notes, entries);
        if (mapper.entryIsRequest(entry, entries)) continue;
        yield* mapper.map(entry?.resource, entries, '', `entry ${entries}`, fullUrl);
      } else {
        yield* noted(event.notes, Math.max(entries, 1));
        if (asObject(event.value)?.resourceType !== 'Bundle')
          yield* mapper.map(event.value, 1, '', 'the document');
      }
    }
  }
  yield* stopAtFault(read(), () => entries + 1);
  yield* mapper.skipped();
}

/**
 * Each line goes through the streaming parser slice by slice as it arrives, never held whole nor
 * parsed in one call, so a line up to the entry cap neither takes its length twice in memory nor
 * holds up the event loop. Parsed by Ward's own parser, not JSON.parse, which would drop a
 * duplicate key and round 1e309 to Infinity without a word.
 */
export async function* readFhirNdjson(
  source: ByteSource,
  options: ReadOptions = {},
): AsyncGenerator<SourceItem> {
  const mapper = new ResourceMapper();
  const maxLine = options.maxLineChars ?? options.maxEntryChars ?? DEFAULT_MAX_ITEM_CHARS;
  const parserOptions = { ...limits(options), maxItemChars: maxLine };
  let line = 1;
  let length = 0;
  /** The line's parser, once it has more than whitespace; the blank start of a line waits in `blank`. */
  let parser: JsonStreamParser | null = null;
  let blank: string[] = [];
  /** A syntax error was reported for this line: the rest of it is skipped. */
  let broken = false;
  /** The last piece ended in `\r`, held back: dropped if the line ends there (`\r\n`). */
  let carriageReturn = false;

  function* fault(error: unknown): Generator<SourceItem> {
    if (!(error instanceof JsonSyntaxFault)) throw error;
    broken = true;
    yield { kind: 'warning', warning: warn.jsonSyntax({ row: line }, line, error.column, error.detail) };
  }

  function* feed(piece: string): Generator<SourceItem> {
    length += piece.length;
    if (length > maxLine) throw new InputFault(line, (at) => warn.lineTooLong(at, maxLine));
    if (broken || piece === '') return;
    if (carriageReturn) piece = `\r${piece}`;
    carriageReturn = piece.endsWith('\r');
    if (carriageReturn) piece = piece.slice(0, -1);
    if (parser === null) {
      if (piece.trim() === '') {
        blank.push(piece);
        return;
      }
      parser = new JsonStreamParser(parserOptions);
      piece = blank.join('') + piece;
      blank = [];
    }
    try {
      parser.push(piece);
    } catch (error) {
      yield* fault(error);
    }
  }

  function* finish(): Generator<SourceItem> {
    if (parser !== null && !broken) {
      let root: JsonEvent | undefined;
      try {
        root = parser.end().at(-1);
      } catch (error) {
        yield* fault(error);
      }
      if (root !== undefined) {
        yield* noted(root.notes, line);
        yield* mapper.map(root.value, line, '', `line ${line}`);
      }
    }
    line++;
    length = 0;
    parser = null;
    blank = [];
    broken = false;
    carriageReturn = false;
  }

  async function* read(): AsyncGenerator<SourceItem> {
    for await (const chunk of inSlices(decodeUtf8(source))) {
      let start = 0;
      for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
        yield* feed(chunk.slice(start, end));
        yield* finish();
        start = end + 1;
      }
      yield* feed(chunk.slice(start));
    }
    if (parser !== null) yield* finish();
  }
  yield* stopAtFault(read());
  yield* mapper.skipped();
}
