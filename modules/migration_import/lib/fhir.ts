/**
 * FHIR R4 readers. JSON: a Bundle of any type (transaction, batch, collection, searchset: its
 * `entry` streamed, one entry in memory at a time) or a single
 * resource; a syntax error ends the read with one warning. NDJSON (FHIR bulk data): a resource or
 * a Bundle per line; a broken line is one warning and reading goes on, since lines stand alone.
 * Resource types not imported are counted and reported once per type, as `info`, at the end.
 */
import { decodeUtf8 } from './decode.ts';
import { stopAtFault } from './fault.ts';
import { asObject, FullUrls, mapResource } from './fhir-map.ts';
import { JsonStreamParser, JsonSyntaxFault, parseJsonText } from './json-stream.ts';
import { splitLines } from './lines.ts';
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
      maxTokenChars: options.maxTokenChars,
    });
    const events = async function* () {
      for await (const text of decodeUtf8(source)) yield* parser.push(text);
      yield* parser.end();
    };
    for await (const event of events()) {
      if (event.kind === 'item') {
        entries++;
        const entry = asObject(event.value);
        const fullUrl = typeof entry?.fullUrl === 'string' ? entry.fullUrl : undefined;
        if (mapper.entryIsRequest(entry, entries)) continue;
        yield* mapper.map(entry?.resource, entries, '', `entry ${entries}`, fullUrl);
      } else if (asObject(event.value)?.resourceType !== 'Bundle') {
        yield* mapper.map(event.value, 1, '', 'the document');
      }
    }
  }
  yield* stopAtFault(read(), () => entries + 1);
  yield* mapper.skipped();
}

export async function* readFhirNdjson(
  source: ByteSource,
  options: ReadOptions = {},
): AsyncGenerator<SourceItem> {
  const mapper = new ResourceMapper();
  async function* read(): AsyncGenerator<SourceItem> {
    for await (const { line, text } of splitLines(decodeUtf8(source), options.maxLineChars ?? 64 << 20)) {
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        try {
          value = parseJsonText(text);
        } catch (error) {
          if (!(error instanceof JsonSyntaxFault)) throw error;
          yield {
            kind: 'warning',
            warning: warn.jsonSyntax({ row: line }, line, error.column, error.detail),
          };
          continue;
        }
      }
      yield* mapper.map(value, line, '', `line ${line}`);
    }
  }
  yield* stopAtFault(read());
  yield* mapper.skipped();
}
