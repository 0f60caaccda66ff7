/**
 * Request bodies against their route's JSON Schema (ajv), compiled on the route's first call. A
 * failing body gets 422 naming the JSON path and what is wrong there, in the words `ward modules
 * doctor` uses.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { ApiError } from '../errors/api-error.ts';
import { schemaErrorProblem } from '../manifests/schema-messages.ts';
import { invalidBody } from '../sdk/errors.ts';

export type BodyValidator = (body: unknown) => void;

/** Throws when the schema itself is broken (route.ts checks modules' schemas at start-up). */
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
