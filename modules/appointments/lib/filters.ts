/**
 * The filters of `GET /appointments`: `?patientId=`, `?status=` (one code or several, comma
 * separated), `?from=` (starts at or after) and `?to=` (starts before), both RFC 3339 instants.
 * An unknown status is refused rather than matching nothing, so a typo is not an empty calendar.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { isInstant } from '../../patients/lib/page.ts';
import { invalidQuery, parseId, queryText } from '../../patients/lib/request.ts';
import { statusCodes, type AppointmentFilter } from './queries.ts';

function instant(ctx: Context, parameter: string): string | undefined {
  const text = queryText(ctx, parameter);
  if (text !== undefined && !isInstant(text))
    throw invalidQuery(parameter, `must be a date-time with its offset, such as 2026-03-01T09:00:00Z`);
  return text;
}

export async function appointmentFilter(ctx: Context, knex: Knex): Promise<AppointmentFilter> {
  const filter: AppointmentFilter = { from: instant(ctx, 'from'), to: instant(ctx, 'to') };
  const patient = queryText(ctx, 'patientId');
  if (patient !== undefined) {
    filter.patientId = parseId(patient) ?? undefined;
    if (filter.patientId === undefined) throw invalidQuery('patientId', 'must be a patient id');
  }
  const status = queryText(ctx, 'status');
  if (status !== undefined) {
    const known = await statusCodes(knex);
    filter.statuses = status.split(',').map((code) => code.trim());
    const unknown = filter.statuses.find((code) => !known.includes(code));
    if (unknown !== undefined)
      throw invalidQuery(
        'status',
        `names no status ${JSON.stringify(unknown)}; the statuses are ${known.join(', ')}`,
      );
  }
  return filter;
}
