/**
 * The SDK's error constructors (`sdk.errors`), which Ward's own routes throw too. ApiError and
 * WardError stay where Ward's own code defines them, so an error a module throws is the very class
 * Ward's error handler renders.
 */
import { ApiError } from '../errors/api-error.ts';

/** 404 for an unknown id, and for a malformed one: a client cannot tell the two apart, nor needs to. */
export function notFound(what: string, id: string | number | undefined): ApiError {
  return new ApiError(
    404,
    'not_found',
    `there is no ${what} ${String(id)}`,
    `check the id; list them with GET on the collection`,
  );
}

export function invalidQuery(parameter: string, message: string): ApiError {
  return new ApiError(
    400,
    'invalid_query',
    `the query parameter ${parameter} ${message}`,
    'fix that parameter and send the request again (GET /api/v1/openapi.json lists the routes)',
  );
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

/**
 * 413 for a body over its limit: `what` is larger than `limit` bytes. The rest of the body is never
 * read, so the answer closes the connection, which spares both sides sending it.
 */
export const bodyTooLarge = (what: string, limit: number, hint: string): ApiError =>
  new ApiError(413, 'body_too_large', `${what} is larger than the limit of ${limit} bytes`, hint, {
    headers: { Connection: 'close' },
  });
