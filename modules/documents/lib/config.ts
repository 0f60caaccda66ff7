/**
 * The largest document Ward accepts, from WARD_DOCUMENT_MAX_BYTES (bytes, or a number with kb or
 * mb). Module routes receive no configuration object, so this module reads its one setting here,
 * when its routes load at start-up: a bad value stops the routes from mounting, with this message.
 */
import type { WardSdk } from '../../../src/sdk/index.ts';

export const MAX_BYTES_VARIABLE = 'WARD_DOCUMENT_MAX_BYTES';
export const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

export function documentMaxBytes(sdk: WardSdk, env: NodeJS.ProcessEnv = process.env): number {
  const value = env[MAX_BYTES_VARIABLE];
  if (value === undefined || value === '') return DEFAULT_MAX_BYTES;
  return sdk.settings.parseSize(value, MAX_BYTES_VARIABLE, '25mb (the default) or 100mb');
}
