/**
 * Reading a module's settings (`sdk.settings`). Ward's own parser words its hint for
 * WARD_JSON_LIMIT ("1mb (the default)"); a module's variable has its own default, which the module
 * passes as `examples` for the hint.
 */
import { parseSize as parseWardSize } from '../config/size.ts';
import { WardError } from '../errors/ward-error.ts';

export function parseSize(value: string, variable: string, examples = '512kb or 25mb'): number {
  try {
    return parseWardSize(value, variable);
  } catch (error) {
    // No cause: it says the same, and a log would print the message twice.
    throw new WardError(
      'invalid_setting',
      (error as Error).message,
      `give bytes or a number with kb or mb, such as ${examples}`,
    );
  }
}
