/** Size settings (WARD_JSON_LIMIT, and the modules' own through the SDK): bytes, kb or mb. */
import { WardError } from '../errors/ward-error.ts';

/** The largest JSON request body when WARD_JSON_LIMIT is not set. */
export const DEFAULT_JSON_LIMIT = 1024 * 1024;

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1024, mb: 1024 * 1024 };

/** `WARD_JSON_LIMIT`: bytes, or a number with kb or mb (1024-based). */
export function parseSize(value: string, variable = 'WARD_JSON_LIMIT'): number {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(value.trim());
  const bytes = match === null ? NaN : Number(match[1]) * (UNITS[(match[2] ?? '').toLowerCase()] ?? NaN);
  if (!Number.isSafeInteger(bytes) || bytes < 1)
    throw new WardError(
      'invalid_setting',
      `${variable}=${JSON.stringify(value)} is not a size`,
      `give bytes or a number with kb or mb, such as 1mb (the default) or 512kb`,
    );
  return bytes;
}
