/** `--expires-in` values: `90d`, `12h`, `30m`, `2w`, or `never`. */
import { WardError } from '../errors/ward-error.ts';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const MAX_MS = 5 * 365 * UNIT_MS.d;

/** Milliseconds, or null for `never`. */
export function parseDuration(value: string): number | null {
  if (value === 'never') return null;
  const match = /^([1-9]\d{0,5})([mhdw])$/.exec(value);
  const ms = match === null ? NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (Number.isNaN(ms) || ms > MAX_MS)
    throw new WardError(
      'invalid_duration',
      `${JSON.stringify(value)} is not a duration Ward understands`,
      'give a number and a unit, m (minutes), h (hours), d (days) or w (weeks), up to 5 years: 90d, 12h; or never',
      { exitCode: 2 },
    );
  return ms;
}
