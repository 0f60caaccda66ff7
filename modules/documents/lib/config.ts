/**
 * The largest document Ward accepts, from WARD_DOCUMENT_MAX_BYTES (bytes, or a number with kb or
 * mb). Module routes receive no configuration object, so this module reads its one setting here,
 * when its routes load at start-up: a bad value stops the routes from mounting, with this message.
 */
import { parseSize } from '../../../src/api/body.ts';
import { WardError } from '../../../src/errors/ward-error.ts';

export const MAX_BYTES_VARIABLE = 'WARD_DOCUMENT_MAX_BYTES';
export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

export function documentMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = env[MAX_BYTES_VARIABLE];
  if (value === undefined || value === '') return DEFAULT_MAX_BYTES;
  try {
    return parseSize(value, MAX_BYTES_VARIABLE);
  } catch (error) {
    throw new WardError(
      'invalid_setting',
      (error as Error).message,
      // No cause: it says the same, and the log would print the message twice.
      'give bytes or a number with kb or mb, such as 25mb (the default) or 100mb',
    );
  }
}
