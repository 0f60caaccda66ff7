/**
 * The SDK object Ward hands to a module's routes factory, services, API factory and hooks (the
 * contract is `WardSdk` in index.ts). Each call gets a view of its own, frozen: the stateless parts
 * are shared, `validation` has its own ajv, so one module's schemas (an `$id` used twice) never meet
 * another's, and `jobs` names the module's own queues. A view knows its module: whom its `acting`
 * contexts write with, which APIs `modules.get` hands out (module-apis.ts loads them).
 */
import { newPartialFile, removeAbandoned } from './partial-files.ts';
import type { Context } from '../http/context.ts';
import type { Knex } from 'knex';
import { ApiError } from '../errors/api-error.ts';
import { acting, jobActor, type Acting } from '../db/acting.ts';
import { WardError, isWardError } from '../errors/ward-error.ts';
import {
  CHECK_VIOLATION,
  FOREIGN_KEY_VIOLATION,
  NOT_NULL_VIOLATION,
  UNIQUE_VIOLATION,
  constraintError,
} from './db-errors.ts';
import { bodyTooLarge, invalidBody, invalidQuery, notFound } from './errors.ts';
import type { SdkJobs, WardSdk } from './index.ts';
import { noJobs } from './jobs.ts';
import { insertRows, insertUnique, nextIds, stage, updateRows, upsertRows } from './batch.ts';
import { pageRequest, toPage } from './page.ts';
import { requestActing } from '../auth/request-caller.ts';
import { recordAudit, type AuditEvent } from '../audit/record.ts';
import { batchDetail, changedFields, type BatchRow } from '../audit/changes.ts';
import { caller, idParam, parseId, queryText, refuseEncoded } from './request.ts';
import { compiler, isInstant } from './schema.ts';
import { parseSize } from './settings.ts';
import { identifierProblem, textProblem } from '../text/text.ts';

/** Semantic version of the contract in index.ts: a minor adds members, a major changes or removes one. */
export const SDK_VERSION = '2.0.0';

/** What every view shares: nothing here keeps state. */
const stateless = {
  version: SDK_VERSION,
  errors: Object.freeze({
    ApiError,
    WardError,
    isWardError,
    notFound,
    invalidQuery,
    invalidBody,
    bodyTooLarge,
  }),
  http: Object.freeze({ caller, parseId, idParam, queryText, pageRequest, toPage, refuseEncoded, isInstant }),
  db: Object.freeze({
    constraintError,
    UNIQUE_VIOLATION,
    FOREIGN_KEY_VIOLATION,
    NOT_NULL_VIOLATION,
    CHECK_VIOLATION,
  } as const),
  settings: Object.freeze({ parseSize }),
  text: Object.freeze({ identifierProblem, textProblem }),
  files: Object.freeze({ newPartialFile, removeAbandoned }),
  batch: Object.freeze({ nextIds, insertRows, insertUnique, updateRows, upsertRows, stage }),
};

/** What a module's view of the SDK is bound to. */
export interface SdkScope {
  /** The module whose view it is; null for code standing in for one (tests, benchmarks). */
  module: string | null;
  /** The pool its acting contexts open transactions on; null where it writes nothing. */
  knex: Knex | null;
  /** The public APIs of the modules in its `depends`, by name (a module without one: absent). */
  apis: ReadonlyMap<string, object>;
  /** Its `depends`: the modules whose APIs it may ask for. */
  depends: readonly string[];
  /** The module's view of the backend's job queue; hooks, commands and tests have none. */
  jobs?: SdkJobs;
}

const UNBOUND: SdkScope = { module: null, knex: null, apis: new Map(), depends: [] };

function pool(scope: SdkScope): Knex {
  if (scope.knex === null) throw new Error('this SDK view has no database: it cannot act');
  return scope.knex;
}

/** The acting context of the caller of `ctx`. */
function requestActingOf(scope: SdkScope, ctx: Context): Acting {
  return requestActing(pool(scope), ctx);
}

/** Records on behalf of `acting`, the module of the view standing in for an event's own. */
function audit(scope: SdkScope, acting: Acting, events: AuditEvent | readonly AuditEvent[]): Promise<void> {
  const list = (Array.isArray(events) ? events : [events]) as readonly AuditEvent[];
  return recordAudit(
    acting,
    list.map((event) => ({ ...event, module: event.module === undefined ? scope.module : event.module })),
  );
}

/** A batch's row, naming the patients it wrote for so that every access to one of them finds it. */
function batchEvent(
  scope: SdkScope,
  acting: Acting,
  kind: string,
  detail: ReturnType<typeof batchDetail>,
): Promise<void> {
  return audit(scope, acting, { action: 'record.batch', kind, patientIds: detail.patients, detail });
}

function moduleApi(scope: SdkScope, name: string): object {
  const who = scope.module ?? 'this code';
  if (!scope.depends.includes(name))
    throw new WardError(
      'module_not_in_depends',
      `module ${who} asks for the API of module ${name}, which is not in its depends`,
      `add "${name}" to "depends" in ${who}'s manifest.json, so Ward installs it first`,
    );
  const api = scope.apis.get(name);
  if (api === undefined)
    throw new WardError(
      'module_has_no_api',
      `module ${name} has no public API (its manifest names no "api" file)`,
      `ask ${name}'s authors for one, or use what its routes offer`,
    );
  return api;
}

/** A fresh view for one module's routes factory, API factory, hook call or command. */
export function moduleSdk(scope: SdkScope = UNBOUND): WardSdk {
  return Object.freeze({
    ...stateless,
    validation: Object.freeze({ compile: compiler() }),
    modules: Object.freeze({ get: <T extends object>(name: string) => moduleApi(scope, name) as T }),
    acting: (ctx: Context) => requestActingOf(scope, ctx),
    jobActing: (id: string) => acting(pool(scope), jobActor(id)),
    jobs: scope.jobs ?? noJobs,
    audit: Object.freeze({
      record: (who: Acting, events: AuditEvent | readonly AuditEvent[]) => audit(scope, who, events),
      changes: changedFields,
      batch: (who: Acting, kind: string, rows: readonly BatchRow[], ids: readonly number[]) =>
        rows.length === 0 ? Promise.resolve() : batchEvent(scope, who, kind, batchDetail(rows, ids)),
    }),
  });
}

/** One view for code that stands in for a module: tests, benchmarks. */
export const sdk: WardSdk = moduleSdk();
