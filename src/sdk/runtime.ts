/**
 * The SDK object Ward hands to a module's routes factory, services and hooks (the contract is
 * `WardSdk` in index.ts). Each call gets a view of its own, frozen: the stateless parts are shared,
 * `validation` has its own ajv, so one module's schemas (an `$id` used twice) never meet another's,
 * and `jobs` names the module's own queues.
 */
import { bodyTooLarge } from '../api/body.ts';
import { ApiError } from '../api/errors.ts';
import { invalidBody } from '../api/validation.ts';
import { WardError, isWardError } from '../errors/ward-error.ts';
import {
  CHECK_VIOLATION,
  FOREIGN_KEY_VIOLATION,
  NOT_NULL_VIOLATION,
  UNIQUE_VIOLATION,
  constraintError,
} from './db-errors.ts';
import { invalidQuery, notFound } from './errors.ts';
import type { SdkJobs, WardSdk } from './index.ts';
import { noJobs } from './jobs.ts';
import { pageRequest, toPage } from './page.ts';
import { caller, idParam, parseId, queryText, refuseEncoded } from './request.ts';
import { compiler, isInstant } from './schema.ts';
import { parseSize } from './settings.ts';
import { identifierProblem, textProblem } from './text.ts';

/** Semantic version of the contract in index.ts: a minor adds members, a major changes or removes one. */
export const SDK_VERSION = '1.0.0';

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
};

/**
 * A fresh view for one module's routes factory and services, or one hook or command call. `jobs`:
 * the module's view of the backend's job queue; hooks and commands have none.
 */
export function moduleSdk(jobs: SdkJobs = noJobs): WardSdk {
  return Object.freeze({ ...stateless, validation: Object.freeze({ compile: compiler() }), jobs });
}

/** One view for code that stands in for a module: tests, benchmarks. */
export const sdk: WardSdk = moduleSdk();
