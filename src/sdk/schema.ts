/**
 * JSON Schemas for modules (`sdk.validation`), on an ajv set up as Ward's route bodies are, so a
 * module's own checks accept the same formats and word their problems the same way. Each module
 * gets its own ajv (see runtime.ts): ajv keeps every schema with an `$id` by that id, so on a shared
 * one two modules using the same `$id` would collide, and which one failed would depend on load
 * order. The ajv is created on first use (about 0.3 ms, then about as much per schema compiled): a
 * module that compiles nothing pays nothing at start-up.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv } from '../api/validation.ts';
import { schemaErrorProblem } from '../manifests/schema-messages.ts';
import type { Validator } from './index.ts';

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
