/**
 * Ward's request context: what a route handler (Ward's own or a module's) reads of its request and
 * sets of its answer, one object per request over Node's `req` and `res`. The members keep the
 * names handlers used when Ward served on Koa (`ctx.body`, `ctx.status`, `ctx.set`, `ctx.get`,
 * `ctx.params`, `ctx.query`, `ctx.ip`, `ctx.cookies`, `ctx.request.body`, `ctx.throw`…) and their
 * meaning, so a handler reads the same; respond.ts writes the answer.
 *
 * Ward's own rather than Koa's: Koa builds three objects per request whose every member is a
 * delegated accessor that parses again on each read, listens for each answer's end, and chains
 * promises, which together cost a permission-checked GET about 10 µs of CPU (docs/benchmarks.md).
 * Here the request's fixed facts are fields set once, the rest is computed on first read and kept,
 * and the libraries for the fiddly parts (cookies, content types, freshness, Content-Disposition,
 * HTTP errors) load only when a request first needs them, so a start loads none of them.
 */
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import type CookiesType from 'cookies';
import type ContentDisposition from 'content-disposition';
import type ContentType from 'content-type';
import type Fresh from 'fresh';
import type HttpErrors from 'http-errors';
import type MimeTypes from 'mime-types';
import type TypeIs from 'type-is';
import type ParseUrl from 'parseurl';

const require = createRequire(import.meta.url);
const parseurl = require('parseurl') as typeof ParseUrl;

/** Each library once, on first use. */
function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
const cookiesLibrary = lazy<typeof CookiesType>('cookies');
const contentDisposition = lazy<typeof ContentDisposition>('content-disposition');
const contentType = lazy<typeof ContentType>('content-type');
const fresh = lazy<typeof Fresh>('fresh');
const httpErrors = lazy<typeof HttpErrors>('http-errors');
const mimeTypes = lazy<typeof MimeTypes>('mime-types');
const typeIs = lazy<typeof TypeIs>('type-is');

/** What a handler receives: the SDK exports it to modules as `Context`. */
export type Context = WardContext;
export type Next = () => Promise<void>;
/** A link of Ward's own chain (request context, router, frontend): `next` runs the links after it. */
export type Middleware = (ctx: WardContext, next: Next) => Promise<void>;

/** How the server reads forwarded headers (its `trustProxy` setting). */
export interface ProxyTrust {
  /** Trust X-Forwarded-For and X-Forwarded-Proto from a reverse proxy. */
  proxy: boolean;
}

/** Statuses whose answer has no body. */
export const EMPTY_STATUS: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The short names handlers give `ctx.type`, resolved without loading the MIME database. A Map, so
 * that a name such as `valueOf` or `__proto__` is no short name but goes to the database.
 */
const SHORT_TYPES: ReadonlyMap<string, string> = new Map([
  ['json', 'application/json; charset=utf-8'],
  ['text', 'text/plain; charset=utf-8'],
  ['html', 'text/html; charset=utf-8'],
  ['bin', 'application/octet-stream'],
]);

/**
 * A full Content-Type for what a handler gives `ctx.type`: a short name, an extension or a MIME
 * type, with the charset the MIME database knows added when none is given; false when unknown.
 */
export function contentTypeOf(type: string): string | false {
  const short = SHORT_TYPES.get(type);
  if (short !== undefined) return short;
  if (type.includes('/') && type.includes('charset')) return type;
  return mimeTypes().contentType(type);
}

export function isStream(body: unknown): body is Readable {
  return body !== null && typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function';
}

/**
 * Koa's query parser (URLSearchParams; a repeated key gives an array), kept so that handlers
 * read the same values: keys are defined, never assigned, so `__proto__` is a plain key.
 */
function parseQuery(text: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (text === '') return query;
  const parsed = new URLSearchParams(text);
  for (const key of parsed.keys()) {
    if (Object.hasOwn(query, key)) continue;
    const values = parsed.getAll(key);
    Object.defineProperty(query, key, {
      value: values.length <= 1 ? values[0] : values,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return query;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** The request's side that Koa kept on `ctx.request`: its parsed body and its Content-* headers. */
export class WardRequest {
  /** The JSON body, parsed and validated against the route's `body` schema by Ward. */
  body?: unknown;
  readonly #req: IncomingMessage;

  constructor(req: IncomingMessage) {
    this.#req = req;
  }

  /** Content-Length as a number, or undefined when absent or not a number. */
  get length(): number | undefined {
    const text = this.#req.headers['content-length'];
    if (text === undefined || text === '') return undefined;
    const parsed = Number.parseInt(text, 10);
    return Number.isNaN(parsed) ? undefined : parsed;
  }

  /** The Content-Type's MIME type, without parameters; '' when absent. */
  get type(): string {
    const type = this.#req.headers['content-type'];
    return type === undefined || type === '' ? '' : (type.split(';')[0] as string);
  }

  /** The Content-Type's charset; '' when absent or unreadable. */
  get charset(): string {
    try {
      return contentType().parse(this.#req).parameters.charset ?? '';
    } catch {
      return '';
    }
  }

  /** type-is: the first of `types` the request's body is, false if none, null without a body. */
  is(...types: string[]): string | false | null {
    return typeIs()(this.#req, types);
  }
}

export class WardContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The request's path, without its query string. */
  readonly path: string;
  /** The matched route's path parameters, decoded (`/patients/:id` → `{ id }`). */
  params: Record<string, string> = NO_PARAMS;
  /** The request's target could not be read as a URL; nothing but a 400 may answer it. */
  readonly urlUnreadable: boolean;
  /** The matched route's template, for the metrics' route label; unset when no route matched. */
  matchedRoute: string | undefined = undefined;
  readonly #trust: ProxyTrust;
  #status = 404;
  #explicitStatus = false;
  #body: unknown = undefined;
  #explicitNullBody = false;
  #request: WardRequest | undefined = undefined;
  #state: Record<string, unknown> | undefined = undefined;
  #cookies: CookiesType | undefined = undefined;
  #query: Record<string, string | string[]> | undefined = undefined;
  #ip: string | undefined = undefined;

  constructor(req: IncomingMessage, res: ServerResponse, trust: ProxyTrust) {
    this.req = req;
    this.res = res;
    this.method = req.method ?? 'GET';
    // A request line Node accepts may still be no URL (`GET http://[::1/`): parseurl throws, and a
    // throw here, outside every handler, would end the process. The request context answers 400.
    let path: string | null;
    try {
      path = parseurl(req)?.pathname ?? '/';
    } catch {
      path = null;
    }
    this.path = path ?? '/';
    this.urlUnreadable = path === null;
    this.#trust = trust;
  }

  get url(): string {
    return this.req.url ?? '/';
  }

  /** The request's side: its parsed JSON body and Content-* headers. */
  get request(): WardRequest {
    return (this.#request ??= new WardRequest(this.req));
  }

  /** Kept from Koa's context; reserved to Ward (module handlers neither read nor write it), unused today. */
  get state(): Record<string, unknown> {
    return (this.#state ??= {});
  }

  /** The query string, without its `?`. */
  get querystring(): string {
    if (this.urlUnreadable) return '';
    const query = parseurl(this.req)?.query;
    return typeof query === 'string' ? query : '';
  }

  /** The query string parsed (URLSearchParams): a key given twice is an array. */
  get query(): Record<string, string | string[] | undefined> {
    return (this.#query ??= parseQuery(this.querystring));
  }

  /** A request header, '' when absent (`Referer` and `Referrer` are one). */
  get(field: string): string {
    const name = field.toLowerCase();
    const headers = this.req.headers;
    const value =
      name === 'referer' || name === 'referrer' ? (headers.referrer ?? headers.referer) : headers[name];
    if (value === undefined) return '';
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /**
   * The client's address: with a trusted proxy, the last X-Forwarded-For entry, the one the proxy
   * appended (entries before it are whatever the client sent, and would let it pick its own
   * address for the sign-in throttle); otherwise the socket's peer.
   */
  get ip(): string {
    if (this.#ip !== undefined) return this.#ip;
    let ip = '';
    if (this.#trust.proxy) {
      const forwarded = this.get('X-Forwarded-For');
      if (forwarded !== '') ip = forwarded.slice(forwarded.lastIndexOf(',') + 1).trim();
    }
    return (this.#ip = ip || this.req.socket.remoteAddress || '');
  }

  /** `https` when the connection is TLS or, with a trusted proxy, X-Forwarded-Proto's first value says so. */
  get protocol(): string {
    if ((this.req.socket as { encrypted?: boolean }).encrypted === true) return 'https';
    if (!this.#trust.proxy) return 'http';
    const proto = this.get('X-Forwarded-Proto');
    return proto === '' ? 'http' : (proto.split(',', 1)[0] as string).trim().toLowerCase();
  }

  get secure(): boolean {
    return this.protocol === 'https';
  }

  /** The request's cookies and the answer's Set-Cookie (the `cookies` library, unsigned). */
  get cookies(): CookiesType {
    return (this.#cookies ??= new (cookiesLibrary())(this.req, this.res, { secure: this.secure }));
  }

  get status(): number {
    return this.#status;
  }

  set status(code: number) {
    if (this.res.headersSent) return;
    if (!Number.isInteger(code) || code < 100 || code > 999)
      throw new TypeError(`invalid status code: ${code}`);
    this.#explicitStatus = true;
    this.#status = code;
    if (this.#body != null && EMPTY_STATUS.has(code)) this.body = null;
  }

  get body(): unknown {
    return this.#body;
  }

  /**
   * The answer's body: an object (sent as JSON), a string, a Buffer, a readable stream, or null
   * (no body). Setting one makes the status 200 unless a status was set, and sets Content-Type
   * (unless set) and Content-Length from it, as Koa did.
   */
  set body(value: unknown) {
    const original = this.#body;
    this.#body = value;
    if (value == null) {
      if (!EMPTY_STATUS.has(this.#status)) {
        if (this.type === 'application/json') {
          this.#body = 'null';
          return;
        }
        this.status = 204;
      }
      if (value === null) this.#explicitNullBody = true;
      this.remove('Content-Type');
      this.remove('Content-Length');
      this.remove('Transfer-Encoding');
      dropStream(original, value);
      return;
    }
    if (!this.#explicitStatus) this.status = 200;
    // Asked in each branch that uses it, not once before them: a JSON body (most answers) does not.
    if (typeof value === 'string') {
      if (!this.res.hasHeader('Content-Type')) this.type = /^\s*</.test(value) ? 'html' : 'text';
      this.length = Buffer.byteLength(value);
    } else if (Buffer.isBuffer(value)) {
      if (!this.res.hasHeader('Content-Type')) this.type = 'bin';
      this.length = value.length;
    } else if (isStream(value)) {
      // Until respond() pipes it, an error (a file that cannot be opened) would have no listener
      // and end the process; the pipeline then meets the stream destroyed and reports it.
      if (original !== value) value.once('error', () => undefined);
      if (original !== value && original != null) this.remove('Content-Length');
      if (!this.res.hasHeader('Content-Type')) this.type = 'bin';
    } else {
      this.remove('Content-Length');
      if (!/\bjson\b/i.test(this.type)) this.type = 'json';
    }
    dropStream(original, value);
  }

  /** Whether the body was set to null on purpose (an empty answer rather than a status text). */
  get explicitNullBody(): boolean {
    return this.#explicitNullBody;
  }

  /** The answer's MIME type, without parameters; '' when none is set. */
  get type(): string {
    const type = this.res.getHeader('Content-Type');
    return typeof type === 'string' && type !== '' ? (type.split(';', 1)[0] as string) : '';
  }

  /** A short name (`json`, `text`, `html`, `bin`), an extension or a MIME type. */
  set type(type: string) {
    const full = contentTypeOf(type);
    if (full === false) this.remove('Content-Type');
    else this.set('Content-Type', full);
  }

  /** The answer's Content-Length, or what its body will take when it can tell. */
  get length(): number | undefined {
    const header = this.res.getHeader('Content-Length');
    if (header !== undefined) return Number.parseInt(String(header), 10) || 0;
    const body = this.#body;
    if (body == null || body === '' || isStream(body)) return undefined;
    if (typeof body === 'string') return Buffer.byteLength(body);
    if (Buffer.isBuffer(body)) return body.length;
    return Buffer.byteLength(JSON.stringify(body));
  }

  set length(bytes: number) {
    if (!this.res.hasHeader('Transfer-Encoding')) this.set('Content-Length', bytes);
  }

  /** Sets an answer header, or each of an object's; nothing once the headers are sent. */
  set(
    field: string | Readonly<Record<string, string | number | readonly string[]>>,
    value?: string | number | readonly string[],
  ): void {
    if (this.res.headersSent) return;
    if (typeof field === 'string') this.res.setHeader(field, value as string | number | readonly string[]);
    else for (const [name, each] of Object.entries(field)) this.res.setHeader(name, each);
  }

  remove(field: string): void {
    if (!this.res.headersSent) this.res.removeHeader(field);
  }

  /**
   * Whether the client's cached copy is still current (its If-None-Match or If-Modified-Since
   * against the answer's ETag and Last-Modified): GET and HEAD answers of 2xx or 304 only.
   */
  get fresh(): boolean {
    if (this.method !== 'GET' && this.method !== 'HEAD') return false;
    const status = this.#status;
    if ((status < 200 || status >= 300) && status !== 304) return false;
    return fresh()(this.req.headers, {
      etag: this.res.getHeader('ETag'),
      'last-modified': this.res.getHeader('Last-Modified'),
    });
  }

  /** Content-Disposition: attachment (with `filename`, whose extension sets the type unless one is set). */
  attachment(filename?: string, options?: ContentDisposition.Options): void {
    if (filename !== undefined && filename !== '' && !this.res.hasHeader('Content-Type'))
      this.type = extname(filename);
    this.set('Content-Disposition', contentDisposition()(filename, options));
  }

  /**
   * Throws an HTTP error (http-errors): `ctx.throw(404, 'no such job')`, `ctx.throw(400)`, or an
   * Error given a status; Ward answers it in its error shape.
   */
  throw(...args: (number | string | Error | Record<string, unknown>)[]): never {
    throw (httpErrors() as unknown as (...parts: unknown[]) => Error)(...args);
  }

  /** The answer can still be written: not ended, and its connection (if any) open. */
  get writable(): boolean {
    if (this.res.writableEnded) return false;
    const socket = this.res.socket;
    return socket === null || socket.writable;
  }
}

/** A stream body replaced by another value is destroyed (its file closed), its late errors ignored. */
function dropStream(original: unknown, value: unknown): void {
  if (!isStream(original) || original === value) return;
  original.once('error', () => undefined);
  if (!isStream(value)) original.destroy();
}
