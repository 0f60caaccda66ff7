/**
 * Request bodies against their route's JSON Schema (ajv), compiled once at start-up. A failing body
 * gets 422 naming the JSON path and what is wrong there, in the words `ward modules doctor` uses.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { schemaErrorProblem } from '../controller/manifest-messages.ts';
import { ApiError } from './errors.ts';

export type BodyValidator = (body: unknown) => void;

export function createAjv(): Ajv {
  // verbose: the messages need each error's schema and data; `example` is OpenAPI's, common in schemas.
  const ajv = new Ajv({ allErrors: false, verbose: true, allowUnionTypes: true });
  ajv.addKeyword('example');
  // ajv-formats is CommonJS with `exports.default`; nodenext types its default import as the module.
  addFormats.default(ajv);
  return ajv;
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
    throw new ApiError(
      422,
      'invalid_body',
      `the request body is invalid at ${problem.path}: ${problem.message}`,
      'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
    );
  };
}
