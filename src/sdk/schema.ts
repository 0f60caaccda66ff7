/**
 * Ward's ajv, which compiles route bodies' schemas and modules' own; and JSON Schemas for modules
 * (`sdk.validation`), on an ajv set up as Ward's route bodies are, so a
 * module's own checks accept the same formats and word their problems the same way. Each module
 * gets its own ajv (see runtime.ts): ajv keeps every schema with an `$id` by that id, so on a shared
 * one two modules using the same `$id` would collide, and which one failed would depend on load
 * order. The ajv is created on first use (about 0.3 ms, then about as much per schema compiled): a
 * module that compiles nothing pays nothing at start-up.
 */
import { createRequire } from 'node:module';
import type { Ajv, AnySchema, ErrorObject, ValidateFunction } from 'ajv';
import type * as AjvModule from 'ajv';
import { schemaErrorProblem } from '../manifests/schema-messages.ts';
import { AJV_OPTIONS, configureAjv } from './ajv-config.ts';
import { generatedOnce } from '../generated.ts';
import type { Validator } from './index.ts';

/** ajv's draft-07 meta-schema validator with Ward's settings, built at install (scripts/build-validators.ts). */
const draft07Validator = generatedOnce<ValidateFunction>('draft-07.validate.cjs');

/** ajv's own wording of its errors (Ajv#errorsText), for a check that runs without an ajv. */
const errorsText = (errors: readonly ErrorObject[]) =>
  errors.map((error) => `data${error.instancePath} ${error.message ?? ''}`).join(', ');

/**
 * Throws, with the message ajv's compile would give, when `schema` (without a `$schema` of its
 * own) breaks the draft-07 meta-schema. It needs no ajv: the start checks modules' body schemas
 * with it and leaves compiling each to its route's first call.
 */
export function checkSchema(schema: object): void {
  if ((schema as { $schema?: unknown }).$schema !== undefined) return;
  const validateDraft07 = draft07Validator();
  if (!validateDraft07(schema))
    throw new Error(`schema is invalid: ${errorsText(validateDraft07.errors ?? [])}`);
}

const require = createRequire(import.meta.url);

/**
 * Ajv checks a schema against the draft-07 meta-schema before compiling it, and compiles the
 * meta-schema for that first, in every instance: 20-30 ms of each start-up (the router's
 * instance, modules' own). Here the check runs on the copy compiled ahead of time with the same
 * settings, with ajv's own result and error. The class is made when the first ajv is: ajv's ~60
 * files (CommonJS, so required synchronously) load only once something compiles.
 */
let WardAjv: (new (options: typeof AJV_OPTIONS) => Ajv) | undefined;

function wardAjvClass() {
  const { Ajv } = require('ajv') as typeof AjvModule;
  return class WardAjv extends Ajv {
    override validateSchema(schema: AnySchema, throwOrLogError?: boolean): boolean | Promise<unknown> {
      // A schema that names its meta-schema may name one only this instance knows.
      if (typeof schema === 'boolean' || schema.$schema !== undefined)
        return super.validateSchema(schema, throwOrLogError);
      const validateDraft07 = draft07Validator();
      const valid = validateDraft07(schema);
      this.errors = validateDraft07.errors ?? null;
      if (!valid && throwOrLogError === true) throw new Error(`schema is invalid: ${this.errorsText()}`);
      return valid;
    }
  };
}

export function createAjv(): Ajv {
  WardAjv ??= wardAjvClass();
  return configureAjv(new WardAjv(AJV_OPTIONS));
}

/**
 * An ajv per module, created on first use. ajv keeps every schema with an `$id` by that id: on one
 * shared instance two modules using the same `$id` would collide, the second to load failing.
 */
export function ajvPerModule(): (module: string | null) => Ajv {
  const ajvs = new Map<string | null, Ajv>();
  return (module) => {
    let ajv = ajvs.get(module);
    if (ajv === undefined) ajvs.set(module, (ajv = createAjv()));
    return ajv;
  };
}

export type Compile = <T = unknown>(schema: object) => Validator<T>;

/** A `compile` with an ajv of its own. */
export function compiler(): Compile {
  let ajv: Ajv | undefined;
  return <T>(schema: object) => {
    ajv ??= createAjv();
    return validator<T>(ajv.compile(schema));
  };
}

function validator<T>(validate: ValidateFunction): Validator<T> {
  const check = (value: unknown): value is T => validate(value);
  return Object.assign(check, {
    problem(value: unknown) {
      if (validate(value)) return null;
      const [first] = validate.errors ?? [];
      return first === undefined
        ? { path: '/', message: 'does not match the schema' }
        : schemaErrorProblem(first);
    },
  });
}

const compileOwn = compiler();
let instant: Validator<string> | undefined;

/**
 * An RFC 3339 date-time with its offset, real days and hours: as PostgreSQL writes a timestamptz in
 * JSON, and as bodies' date-times are checked. Date.parse would let "February 30" through.
 */
export function isInstant(value: unknown): value is string {
  instant ??= compileOwn<string>({ type: 'string', format: 'date-time' });
  return instant(value);
}
