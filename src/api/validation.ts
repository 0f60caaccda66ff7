/**
 * Request bodies against their route's JSON Schema (ajv), compiled once at start-up. A failing body
 * gets 422 naming the JSON path and what is wrong there, in the words `ward modules doctor` uses.
 */
import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';
import { schemaErrorProblem } from '../manifests/schema-messages.ts';
import { AJV_OPTIONS, configureAjv } from './ajv-config.ts';
import { generatedOnce } from '../generated.ts';
import { ApiError } from './errors.ts';

export type BodyValidator = (body: unknown) => void;

/** ajv's draft-07 meta-schema validator with Ward's settings, built at install (scripts/build-validators.ts). */
const draft07Validator = generatedOnce<ValidateFunction>('draft-07.validate.cjs');

/**
 * Ajv checks a schema against the draft-07 meta-schema before compiling it, and compiles the
 * meta-schema for that first, in every instance: 20-30 ms of each start-up (the router's
 * instance, modules' own). Here the check runs on the copy compiled ahead of time with the same
 * settings, with ajv's own result and error.
 */
class WardAjv extends Ajv {
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
}

export function createAjv(): Ajv {
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

/**
 * The 422 of a body that is wrong at `pointer` (a JSON pointer), whether the schema check found it
 * or a module's own check (one JSON Schema cannot express, or a database constraint).
 */
export function invalidBody(pointer: string, message: string, cause?: unknown): ApiError {
  return new ApiError(
    422,
    'invalid_body',
    `the request body is invalid at ${pointer}: ${message}`,
    'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
    { cause },
  );
}

/** Throws at start-up when the schema itself is broken, so a module author learns it then. */
export function compileBody(ajv: Ajv, schema: object): BodyValidator {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    if (body === undefined)
      throw new ApiError(
        422,
        'invalid_body',
        'the request has no body; this route takes a JSON body',
        'send a JSON body with Content-Type: application/json (GET /api/v1/openapi.json has its schema)',
      );
    if (validate(body)) return;
    const [first] = validate.errors ?? [];
    const problem =
      first === undefined ? { path: '/', message: 'does not match the schema' } : schemaErrorProblem(first);
    throw invalidBody(problem.path, problem.message);
  };
}
