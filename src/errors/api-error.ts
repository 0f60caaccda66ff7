/**
 * An expected failure of an HTTP request: a WardError with the status it is answered with, and
 * headers to send along (a 401's WWW-Authenticate, a 413's Connection: close). Ward's API and the
 * module SDK throw it; src/api/errors.ts renders it.
 */
import { WardError } from './ward-error.ts';

export class ApiError extends WardError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    hint: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(code, message, hint, { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.headers = options.headers ?? {};
  }
}
