/**
 * The module SDK: the one contract between Ward and a module, official or community. A module
 * imports only types from this file (`import type`, erased before it runs); everything it calls at
 * run time comes from the `sdk` object Ward hands to its routes factory and its hooks. So a
 * community package, plain JavaScript under node_modules, gets exactly what the official modules
 * use, and Ward may reorganise its internals without breaking either.
 *
 * Routes: a module's `routes.ts` (or `routes.js`) default-exports a `ModuleRoutes` function. Ward
 * mounts what it returns at `/api/v1/<module>/`, checks each route's permission before its handler
 * runs (so a module cannot forget a guard) and validates a JSON `body` against the route's schema
 * first. Errors thrown as `sdk.errors.*`, `ctx.throw(status, message)` or WardErrors reach the
 * client in Ward's one error shape, `{"error": {"code", "message", "hint"}}`; anything else is a
 * bug: logged with its stack, answered 500 without detail.
 *
 * Hooks: a module's `hooks.ts` (or `hooks.js`) may export the functions of `Hooks`; each runs
 * inside its step's transaction.
 *
 * Commands: a module's `commands.ts` (or `commands.js`) may default-export `ModuleCommands`, the
 * operator's commands for an installed module, run with `ward modules run <module> <command>`.
 *
 * Public API: a module others may use names one file in its manifest (`"api": "api.ts"`) whose
 * default export is a `ModuleApiFactory`; the functions it returns apply the module's own rules and
 * take the acting context first. Another module reaches them only through `sdk.modules.get(name)`
 * (typed by an `import type` of that file), never by importing the file, and only if the module is
 * in its `depends`.
 *
 * Who acts: every write runs on behalf of someone, an `Acting` context (`sdk.acting(ctx)` in a
 * route, `acting` in a hook's or a command's context, `sdk.jobActing(id)` for background work),
 * whose `transaction(work)` records the actor where database triggers read it:
 * `current_setting('ward.actor', true)`.
 *
 * Services: a module's `services.ts` (or `services.js`) may default-export `ModuleServices`,
 * long-running work (job handlers, a periodic sweep) that Ward starts with each backend, after the
 * routes load and before it listens, and stops when the backend stops, after the last request has
 * been answered and before the pool closes. Background jobs (`sdk.jobs`) are defined there.
 */
import type { Knex } from 'knex';
import type { Context, WardRequest } from '../http/context.ts';
import type { ApiError } from '../errors/api-error.ts';
import type { Acting, Actor } from '../db/acting.ts';
import type { WardError } from '../errors/ward-error.ts';
import type { TextProblem } from '../text/text.ts';
import type { Logger } from '../logger.ts';
import type { Manifest } from '../../generated/manifest.types.ts';

import type { AuditEvent } from '../audit/record.ts';
import type { BatchRow, Changes } from '../audit/changes.ts';

export type {
  Acting,
  Actor,
  ApiError,
  AuditEvent,
  Changes,
  Context,
  Knex,
  Logger,
  Manifest,
  TextProblem,
  WardError,
  WardRequest,
};

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  method: RouteMethod;
  /** Relative to the module's mount point: `/jobs/:id/preview`, `:name` segments and a `*rest` tail (docs/modules.md, Route paths). */
  path: string;
  /** Permission the caller needs, `<module>.<resource>.<action>`; `null` only for routes any signed-in user may call. */
  permission: string | null;
  /** JSON Schema of the JSON request body; a body that does not match gets 422 before the handler. */
  body?: object;
  /** Raw body (uploads): the handler reads `ctx.req` itself as a stream; no JSON parsing happens. */
  rawBody?: boolean;
  /** One line for the OpenAPI document. */
  summary?: string;
  handler: (ctx: Context) => Promise<void>;
}

/** What a module's routes factory receives, once, when the backend starts. */
export interface ModuleRouteContext {
  /** The connection pool. */
  knex: Knex;
  /** Ward's logger, tagged with the module's name. */
  logger: Logger;
  /** Ward's storage directory; modules keep their files under `<storageDir>/<module>/`. */
  storageDir: string;
  /** The module's own name, for namespacing files and permissions. */
  module: string;
  sdk: WardSdk;
}

/** The default export of `routes.ts`/`routes.js`. A throw (or rejection) leaves the module unmounted: its prefix answers 503 with the reason. */
export type ModuleRoutes = (context: ModuleRouteContext) => RouteDefinition[] | Promise<RouteDefinition[]>;

/** What a lifecycle hook receives. */
export interface HookContext {
  /** The step's transaction: a hook that throws leaves nothing it wrote behind. */
  knex: Knex;
  /** Ward itself (`system`) inside the step's transaction: what other modules' APIs take. */
  acting: Acting;
  /** Ward's logger, tagged with the module and the hook. */
  logger: Logger;
  /** The module's manifest, as validated. */
  manifest: Manifest;
  /** Ward's storage directory (backups, uploaded files); a module's own files go under `<storageDir>/<module>/`. */
  storageDir: string;
  sdk: WardSdk;
}

/**
 * The exports of `hooks.ts`/`hooks.js`, each optional. A hook's database writes commit with the
 * record that its step is done; effects outside the database must be safe to repeat, since after a
 * crash the step runs again.
 */
export interface Hooks {
  /** After the module's migrations and seeds, on install. */
  post_install?: (ctx: HookContext) => unknown;
  /** After the new migrations and the seeds, on upgrade; `fromVersion` is the version installed before. */
  post_upgrade?: (ctx: HookContext, fromVersion: string | null) => unknown;
  /** On uninstall, after the backup and before the module's tables are dropped: it can still read them. */
  uninstall?: (ctx: HookContext) => unknown;
}

/** What a module's command receives: the CLI's own connection pool, not a transaction. */
export interface CommandContext {
  /** The connection pool of the `ward` process; a command that changes several things opens its own transaction. */
  knex: Knex;
  /** Ward's logger, tagged with the module and the command. */
  logger: Logger;
  /** The module's manifest, as validated. */
  manifest: Manifest;
  /** Ward's storage directory; the module's files are under `<storageDir>/<module>/`. */
  storageDir: string;
  /** Who runs it, for the record: `cli:<the operating-system user>`. */
  operator: string;
  /** The operator (`cli:<user>`) as an acting context: write through `acting.transaction(…)`. */
  acting: Acting;
  sdk: WardSdk;
}

/** What a service's `start` receives, once per backend. */
export interface ServiceContext {
  /** The connection pool. */
  knex: Knex;
  /** Ward's logger, tagged with the module and the service. */
  logger: Logger;
  /** Ward's storage directory; the module's files are under `<storageDir>/<module>/`. */
  storageDir: string;
  /** The module's own name. */
  module: string;
  sdk: WardSdk;
}

/** A started service: what its `start` returned. */
export interface StartedService {
  /** Ends the work and resolves once nothing of it runs; Ward calls it once. */
  stop(): void | Promise<void>;
}

/**
 * One of a module's services. `start` returns once the work is set up (a timer armed, a job
 * defined), not when it ends, with the handle that stops it: one process may run several backends
 * (tests do), so a service keeps its state there, not in the module's top level. A `start` that
 * throws is logged and there is nothing to stop; the module's routes are served all the same.
 */
export interface ServiceDefinition {
  /** Lowercase letters, digits and hyphens: `sweeper`, `import-runs`, for the log. */
  name: string;
  start(ctx: ServiceContext): StartedService | Promise<StartedService>;
}

/** The default export of `services.ts`/`services.js`, started in order and stopped in reverse. */
export type ModuleServices = readonly ServiceDefinition[];

/** What a command hands back: the lines `ward` prints, and what it prints with `--json`. */
export interface CommandResult {
  lines: string[];
  /** With `--json`; `lines` when absent. */
  data?: unknown;
}

/** One of a module's commands. Errors are thrown as WardErrors (`sdk.errors.*` for HTTP-only ones do not fit). */
export interface CommandDefinition {
  /** Lowercase letters, digits and hyphens, starting with a letter: `purge`, `purge-expired`. */
  name: string;
  /** One line for `ward modules run <module>`. */
  summary: string;
  /** Its arguments, for the listing: `<job-id>`. */
  usage?: string;
  run(args: readonly string[], ctx: CommandContext): CommandResult | Promise<CommandResult>;
}

/** The default export of `commands.ts`/`commands.js`. */
export type ModuleCommands = readonly CommandDefinition[];

/** Who calls an authenticated route. */
export interface Caller {
  userId: number;
  username: string;
  /** Every role the user holds. */
  roles: readonly string[];
  /** The roles this request acts with: `roles`, or the one role of a scoped API token. */
  activeRoles: readonly string[];
  /** A browser session (cookie or bearer session token) or an API token. */
  via: 'session' | 'token';
  /** Whether the active roles grant `permission` (`*` and `<module>.*` grants included). */
  can(permission: string): boolean;
}

/** The type of one column of a list's sort key. `integer`: a PostgreSQL integer (serial id). */
export type KeyKind = 'text' | 'integer' | 'timestamp';

/** One value of a sort key; a `timestamp` is an RFC 3339 string with its offset. */
export type PageKey = string | number;

export interface PageRequest {
  /** Rows per page, 1 to 200 (default 50). */
  limit: number;
  /** Sort key of the last row already seen (from `?cursor`), or null from the start. */
  after: PageKey[] | null;
  /** Rows to skip (from `?offset`), 0 when a cursor is used. */
  offset: number;
}

/** Every list's answer; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What node-postgres says about a failed constraint. */
export interface ConstraintError {
  /** The SQLSTATE, such as `sdk.db.UNIQUE_VIOLATION`. */
  code: string;
  /** The constraint's name, which says which field was wrong. */
  constraint: string;
}

/** Where a value breaks a schema: a JSON pointer, and what is wrong there. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/** A compiled JSON Schema. */
export interface Validator<T = unknown> {
  /** Whether `value` matches the schema. */
  (value: unknown): value is T;
  /** The first place `value` breaks the schema, in the words of Ward's 422 answers; null when it matches. */
  problem(value: unknown): SchemaProblem | null;
}

/** The errors every module throws. Each constructor returns the error; the caller throws it. */
export interface SdkErrors {
  /**
   * An HTTP failure: `new ApiError(status, code, message, hint, { cause?, headers? })`. Rendered
   * with its status as `{"error": {code, message, hint}}`. Say what was found, then the fix.
   */
  ApiError: typeof ApiError;
  /**
   * An expected failure outside a request (a setting, a hook): `new WardError(code, message,
   * hint, { cause? })`. In a request it renders as a 500 with its message: prefer ApiError there.
   */
  WardError: typeof WardError;
  /** Whether `error` is a WardError (ApiErrors included): an expected failure whose message may be shown. */
  isWardError(error: unknown): error is WardError;
  /** 404 `not_found`: "there is no <what> <id>". */
  notFound(what: string, id: string | number | undefined): ApiError;
  /** 400 `invalid_query`: "the query parameter <parameter> <message>". */
  invalidQuery(parameter: string, message: string): ApiError;
  /**
   * 422 `invalid_body`: "the request body is invalid at <pointer>: <message>", for what a JSON
   * Schema cannot say (a database constraint, a rule across fields). `pointer` is a JSON pointer.
   */
  invalidBody(pointer: string, message: string, cause?: unknown): ApiError;
  /**
   * 413 `body_too_large`: "<what> is larger than the limit of <limit> bytes". It closes the
   * connection, since the rest of the body is never read; `hint` names the setting.
   */
  bodyTooLarge(what: string, limit: number, hint: string): ApiError;
}

/** Reading requests. The functions taking `ctx` throw the SDK's ApiErrors for what a client got wrong. */
export interface SdkHttp {
  /** Who calls. Throws a plain Error (a bug: 500) on a route that has no caller. */
  caller(ctx: Context): Caller;
  /** A positive PostgreSQL integer id from text, or null for anything else. Never throws. */
  parseId(text: string | undefined): number | null;
  /**
   * The route parameter `name` as an id. Throws `notFound(what, text)` when it is not one: a
   * malformed id is answered like an unknown one.
   */
  idParam(ctx: Context, name: string, what: string): number;
  /**
   * One query parameter's text in NFC, undefined when absent or empty. Throws `invalidQuery` when it
   * is repeated, or when its percent-encoded bytes are not UTF-8.
   */
  queryText(ctx: Context, name: string): string | undefined;
  /**
   * `?limit` (1 to 200, default 50) and `?cursor` (keyset) or `?offset`. `kinds`: the types of
   * the list's sort key, in order. Throws `invalidQuery` for a bad limit or offset, both cursor
   * and offset, or a cursor this list did not give out.
   */
  pageRequest(ctx: Context, kinds: readonly KeyKind[]): PageRequest;
  /**
   * The page of `rows`, fetched in sort order with `limit + 1` rows (the extra one only says a next
   * page exists): the first `limit` rows through `present`, and the cursor of the last one from
   * `keyOf`, which returns its sort key in the order and kinds given to `pageRequest`. Never throws.
   */
  toPage<R, T>(
    rows: readonly R[],
    limit: number,
    keyOf: (row: R) => PageKey[],
    present: (row: R) => T,
  ): Page<T>;
  /**
   * For raw uploads stored as sent. Throws 415 `unsupported_media_type` when the request has a
   * Content-Encoding other than identity: a compressed body would be stored compressed.
   */
  refuseEncoded(ctx: Context): void;
  /** Whether `value` is an RFC 3339 date-time with its offset and a real day and hour. Never throws. */
  isInstant(value: unknown): value is string;
}

/** PostgreSQL errors. Let constraints decide (race-free), then name the field from the constraint. */
export interface SdkDb {
  /** The SQLSTATE and constraint name of a constraint failure, or null for any other error. Never throws. */
  constraintError(error: unknown): ConstraintError | null;
  /** `23505` unique_violation: a row with the same key exists. */
  readonly UNIQUE_VIOLATION: '23505';
  /** `23503` foreign_key_violation: the referenced row does not exist (or a referencing one still does). */
  readonly FOREIGN_KEY_VIOLATION: '23503';
  /** `23502` not_null_violation: a required column got no value. */
  readonly NOT_NULL_VIOLATION: '23502';
  /** `23514` check_violation: a CHECK constraint refused the row. */
  readonly CHECK_VIOLATION: '23514';
}

/** Reading the module's settings (environment variables, read once when its routes load). */
export interface SdkSettings {
  /**
   * A size in bytes: a whole number, or one with `b`, `kb` or `mb` (1024-based). Throws WardError
   * `invalid_setting` naming `variable` when `value` is not a size of at least one byte; its hint
   * ends "such as <examples>" (default `512kb or 25mb`): name your default there,
   * `25mb (the default) or 100mb`.
   */
  parseSize(value: string, variable: string, examples?: string): number;
}

/** JSON Schemas beyond route bodies (which Ward validates itself), with Ward's formats (`date-time`, `email`, …). */
export interface SdkValidation {
  /** Compiles `schema`; compile once, at load time, not per request. Throws an Error when the schema itself is invalid. */
  compile<T = unknown>(schema: object): Validator<T>;
}

/**
 * Unicode rules for text people type and compare. Strings of JSON bodies and `http.queryText` are
 * already NFC; these refuse the characters nobody can see, which would make two values that look
 * alike differ (or, bidi controls, make one look like another). Text read elsewhere (an uploaded
 * file) should be normalised with `value.normalize('NFC')` first.
 */
export interface SdkText {
  /**
   * For identifiers (an MRN, a code): the first control (Cc) or format character (Cf: zero-width
   * characters, bidi controls, soft hyphen, …), line or paragraph separator, space other than
   * U+0020, or lone surrogate; null when there is none. Never throws.
   */
  identifierProblem(value: string): TextProblem | null;
  /**
   * For text (a name, a title, a note): the first control character (with `multiline`, tab, LF and
   * CR are allowed), line or paragraph separator, lone surrogate, or format character other than
   * U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER between two letters, marks or symbols
   * (as Persian, Indic scripts and emoji use them); null when there is none. Never throws.
   */
  textProblem(value: string, options?: { multiline?: boolean }): TextProblem | null;
}

/**
 * What a job's handler receives: the job's acting context (`job:<id>`, its `knex` the pool; write
 * in `transaction(…)` so the rows are attributed to the job), the job, and a way to report progress.
 */
export interface JobContext<T = unknown> extends Acting {
  /** The job's id, as `enqueue` returned it. */
  readonly id: string;
  /** The job's name within its module, as given to `define`. */
  readonly name: string;
  /** What `enqueue` was given, as JSON brought it back. */
  readonly data: T;
  /** 1 for the first attempt; more when a failure or a dead backend made the queue retry it. */
  readonly attempt: number;
  /**
   * Aborted when the job is cancelled, when its lease was lost (another backend has taken it
   * over), or when this backend stops and the grace period ends. Stop at the next safe point: a
   * handler that returns completes the job; one that throws has it retried.
   */
  readonly signal: AbortSignal;
  /** Ward's logger, tagged with the module and the job. */
  readonly logger: Logger;
  /** Records how far the job is (`done` of `total`), readable from any backend with `jobs.get`. */
  progress(done: number, total: number): Promise<void>;
}

/** Runs one job. Resolving completes it; throwing fails this attempt, and the queue retries it. */
export type JobHandler<T = unknown> = (ctx: JobContext<T>) => Promise<void>;

/** How a kind of job runs; every field is optional. */
export interface JobOptions {
  /** Retries after a failed attempt, or one whose backend died (default 5). */
  retryLimit?: number;
  /** Seconds before the first retry; each next one waits about twice as long (default 1). */
  retryDelaySeconds?: number;
  /**
   * The lease, in seconds (at least 10, default 30): a running job renews it while its backend
   * lives; once it lapses, another backend retries the job. Keep writes a lapsed attempt might
   * still make fenced (a row that names the attempt holding it), as the queue cannot stop a
   * backend that only stalled.
   */
  leaseSeconds?: number;
  /** Longest one attempt may run, in seconds (default 12 hours): then it fails and is retried. */
  timeoutSeconds?: number;
  /** Jobs of this kind one backend runs at once (default 2). */
  concurrency?: number;
  /** At most one job per `key` queued or running at a time (default false); fixed by the first `define`. */
  uniquePerKey?: boolean;
}

export interface EnqueueOptions {
  /** With `uniquePerKey`: the job is not added while another with this key is queued or running. */
  key?: string;
  /** Start no sooner than this many seconds from now. */
  startAfterSeconds?: number;
  /** Enqueue inside this transaction: the job exists only if it commits. */
  trx?: Knex.Transaction;
}

/** A job as the queue knows it. */
export interface JobInfo {
  id: string;
  name: string;
  /** `retrying`: an attempt failed (or its backend died) and the next waits for its back-off. */
  state: 'queued' | 'running' | 'retrying' | 'completed' | 'cancelled' | 'failed';
  /** Attempts started so far. */
  attempts: number;
  /** As the handler last reported it; null before it reported any. */
  progress: { done: number; total: number } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/**
 * Background jobs, kept in PostgreSQL: a job enqueued on one backend may run on any, survives
 * restarts, and is retried with back-off when it fails or its backend dies. Names are the module's
 * own (`run`, `send-reminder`); two modules' jobs never meet. Available in routes and services; in
 * hooks and commands every call rejects with WardError `jobs_unavailable`.
 */
export interface SdkJobs {
  /**
   * Runs `handler` for the module's jobs named `name` on this backend (call it from a service's
   * `start`), and applies `options` to the queue. Rejects when the name is not lowercase letters,
   * digits, `_` or `-` starting with a letter.
   */
  define<T = unknown>(name: string, handler: JobHandler<T>, options?: JobOptions): Promise<void>;
  /**
   * Adds a job with `data` (JSON); resolves to its id, or null when `uniquePerKey` kept it out.
   * Rejects with WardError `job_undefined` when no backend ever defined `name`.
   */
  enqueue(name: string, data: object, options?: EnqueueOptions): Promise<string | null>;
  /** Cancels a queued or running job (a running one sees its `signal` abort); false when it had ended. */
  cancel(name: string, id: string): Promise<boolean>;
  /** The job, or null when there is none with this id (or the queue has deleted it since). */
  get(name: string, id: string): Promise<JobInfo | null>;
}

/**
 * The audit trail: who read or changed which record. A module records every read of a record
 * holding health information, every list (the ids it showed), and every create, update and delete
 * with `changes` (values stay in the database: never log them). A write is recorded in the
 * transaction of the change, last, just before it commits (appends take turns until commit).
 */
export interface SdkAudit {
  /**
   * Records `events` as `acting`'s actor and client: inside its transaction when it has one (they
   * commit or roll back with the change), else in one of their own, awaited (a read's record is
   * written before the answer goes out). `module` defaults to the calling module.
   */
  record(acting: Acting, events: AuditEvent | readonly AuditEvent[]): Promise<void>;
  /** `{field: [before, after]}` for the fields that differ (`createdAt`, `updatedAt` left out); null before a create, after a delete. */
  changes(before: object | null, after: object | null): Changes;
  /**
   * Records one `record.batch` event of `kind` for a batch write in `acting`'s transaction (one row
   * per batch, not per record, so an import stays fast): row i of `rows` was written as `ids[i]`,
   * an update when it came with an `id`; with the patients the rows belong to. Nothing for none.
   */
  batch(acting: Acting, kind: string, rows: readonly BatchRow[], ids: readonly number[]): Promise<void>;
}

/** The object handed to a module's routes factory and hooks as `sdk`. */
export interface WardSdk {
  /** The SDK's semantic version: a minor release adds members, only a major one changes or removes any. */
  readonly version: string;
  readonly errors: SdkErrors;
  readonly http: SdkHttp;
  readonly db: SdkDb;
  readonly settings: SdkSettings;
  readonly validation: SdkValidation;
  readonly text: SdkText;
  readonly batch: SdkBatch;
  readonly files: SdkFiles;
  /** Other modules' public APIs. */
  readonly modules: SdkModules;
  /**
   * The acting context of a request: its caller (`user:<id>:session:<ref>` or
   * `user:<id>:token:<id>`). Throws a plain Error on a route without a caller.
   */
  acting(ctx: Context): Acting;
  /**
   * The acting context of work the module runs in the background on its own: `job:<id>`. Name
   * the job so it is unique across Ward: `<module>:<your id>`, such as `migration_import:42`.
   */
  jobActing(id: string): Acting;
  readonly jobs: SdkJobs;
  readonly audit: SdkAudit;
}

/** How a kind of partial file is named: `<prefix><owner tag>-<pid>-<random><suffix>`. */
export interface PartialKind {
  prefix: string;
  suffix: string;
}

/** A file an upload is writing; Ward vouches for it (no backend removes it) until `release`. */
export interface PartialFile {
  readonly file: string;
  /** Stops vouching for the file: call once it has been renamed into place or removed. */
  release(): void;
}

/**
 * Files an upload writes before it is whole, and what a backend that died mid-upload left behind.
 * Several replicas may share the storage folder: a partial file's name says which backend writes
 * it, and a live backend touches its files every minute, so no backend ever removes a file a live
 * upload is writing (here or on another replica), while a dead one's files go at the next start
 * or sweep.
 */
export interface SdkFiles {
  /** A new partial file's name in `dir` (the caller creates it), vouched for until released. */
  newPartialFile(dir: string, kind: PartialKind): Promise<PartialFile>;
  /** Removes the partial files of `kind` in `dir` that no live upload writes; returns their names. */
  removeAbandoned(dir: string, kind: PartialKind): Promise<string[]>;
}

/** One column of a `BatchTable`. */
export interface BatchColumn<Row> {
  name: string;
  /** The element type of the array the values travel in. */
  type: 'text' | 'int' | 'bigint' | 'date' | 'timestamptz';
  /** Applied after `unnest`: JSON travels as text and becomes `jsonb` here. */
  cast?: 'jsonb';
  /** The column's value in a row; null and undefined are NULL. */
  of: (row: Row) => unknown;
}

/** A table as `sdk.batch` writes it: which columns, from which fields of a row. */
export interface BatchTable<Row> {
  /** Your own table: a module writes only its own tables. */
  table: string;
  columns: ReadonlyArray<BatchColumn<Row>>;
  /** A column updates set to now(), or null. */
  touch: string | null;
}

/**
 * Batched writes of many rows in one statement each (`unnest` of one array per column), for
 * imports and other bulk work: inside your transaction, each costs one round trip whatever the
 * number of rows. The order of RETURNING is never relied upon.
 */
export interface SdkBatch {
  /** `count` new ids from the `id` sequence of `table`. */
  nextIds(knex: Knex, table: string, count: number): Promise<number[]>;
  /** Inserts rows with the ids given (from `nextIds`). */
  insertRows<Row>(
    knex: Knex,
    table: BatchTable<Row>,
    rows: ReadonlyArray<{ id: number; columns: Row }>,
  ): Promise<void>;
  /**
   * Inserts rows, skipping those that conflict on the unique column `key`; returns the new ids by
   * the value of `key` (a row skipped has none).
   */
  insertUnique<Row>(
    knex: Knex,
    table: BatchTable<Row>,
    rows: readonly Row[],
    key: keyof Row & string,
  ): Promise<Map<string, number>>;
  /** Updates the rows with these ids to these columns (and `touch` to now()). */
  updateRows<Row>(
    knex: Knex,
    table: BatchTable<Row>,
    rows: ReadonlyArray<{ id: number; columns: Row }>,
  ): Promise<void>;
  /**
   * Inserts the rows without an `id` (their ids drawn from the table's sequence) and updates those
   * with one: one INSERT and one UPDATE. Returns each row's id, in the order given.
   */
  upsertRows<Row>(
    knex: Knex,
    table: BatchTable<Row>,
    rows: ReadonlyArray<{ id?: number; columns: Row }>,
  ): Promise<number[]>;
  /**
   * Copies rows into a new temporary table through one `COPY`, for one statement that joins the
   * whole batch: inserts, updates and
   * lookups together. Inside a transaction only; the table is dropped when it ends. Its columns:
   * `ord` (the row's index in `rows`), `id` (null for a row without) and `table`'s columns, a
   * `cast` column already of its cast type. Returns the table's name (`pg_temp.…`) to select from.
   */
  stage<Row>(
    knex: Knex,
    table: BatchTable<Row>,
    rows: ReadonlyArray<{ id?: number; columns: Row }>,
  ): Promise<string>;
}

/** `sdk.modules`: the public APIs of the modules this one depends on. */
export interface SdkModules {
  /**
   * What module `name`'s API factory returned, typed by `import type` of its API file:
   * `sdk.modules.get<PatientsApi>('patients')`. Throws WardError `module_not_in_depends` when
   * `name` is not in this module's `depends`, and `module_has_no_api` when it declares no `api`.
   */
  get<T extends object>(name: string): T;
}

/** What a module's API factory receives, once per process. */
export interface ModuleApiContext {
  /** The module's own name. */
  module: string;
  /** Ward's logger, tagged with the module's name. */
  logger: Logger;
  /** Ward's storage directory; the module's files are under `<storageDir>/<module>/`. */
  storageDir: string;
  /** The module's own SDK view: its `modules.get` reaches the modules in its own `depends`. */
  sdk: WardSdk;
}

/**
 * The default export of the file a manifest's `api` names: returns the module's public API, an
 * object of functions that take the caller's `Acting` first (`upsertMany(acting, rows)`), read
 * with `acting.knex` and write inside `acting.transaction(…)`, so the caller's transaction and
 * actor carry through. A throw leaves the API (and the routes of modules that need it) unloaded.
 */
export type ModuleApiFactory<T extends object> = (context: ModuleApiContext) => T;
