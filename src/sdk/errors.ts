/**
 * The SDK's error constructors (`sdk.errors`). ApiError and WardError stay where Ward's own code
 * defines them, so an error a module throws is the very class Ward's error handler renders.
 */
import { ApiError } from '../api/errors.ts';

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
