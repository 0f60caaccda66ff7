/**
 * Expected failures are values: a stable code a script can branch on, a message that names what
 * was found, and a hint that says what to do about it. The CLI and HTTP layers only render them;
 * anything that is not a WardError is a bug and keeps its stack trace.
 */
export class WardError extends Error {
  readonly code: string;
  readonly hint: string;
  /** Process exit status when this error ends a CLI command: 1 refused or failed, 2 bad usage. */
  readonly exitCode: 1 | 2;

  constructor(
    code: string,
    message: string,
    hint: string,
    options: { cause?: unknown; exitCode?: 1 | 2 } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WardError';
    this.code = code;
    this.hint = hint;
    this.exitCode = options.exitCode ?? 1;
  }

  toJSON(): { code: string; message: string; hint: string } {
    return { code: this.code, message: this.message, hint: this.hint };
  }
}

export const isWardError = (error: unknown): error is WardError => error instanceof WardError;
