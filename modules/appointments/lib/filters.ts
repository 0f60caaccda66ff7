/**
 * The filters of `GET /appointments`: `?patientId=`, `?practitionerId=`, `?status=` (one code or several, comma
 * separated), `?from=` (starts at or after) and `?to=` (starts before), both RFC 3339 instants.
 * An unknown status is refused rather than matching nothing, so a typo is not an empty calendar.
 */
import type { Knex } from 'knex';
import type { Context, WardSdk } from '../../../src/sdk/index.ts';
import { statusCodes, type AppointmentFilter } from './queries.ts';

function instant(sdk: WardSdk, ctx: Context, parameter: string): string | undefined {
  const text = sdk.http.queryText(ctx, parameter);
  if (text !== undefined && !sdk.http.isInstant(text))
    throw sdk.errors.invalidQuery(
      parameter,
      `must be a date-time with its offset, such as 2026-03-01T09:00:00Z`,
    );
  return text;
}

export async function appointmentFilter(sdk: WardSdk, ctx: Context, knex: Knex): Promise<AppointmentFilter> {
  const { http, errors } = sdk;
  const filter: AppointmentFilter = { from: instant(sdk, ctx, 'from'), to: instant(sdk, ctx, 'to') };
  const patient = http.queryText(ctx, 'patientId');
  if (patient !== undefined) {
    filter.patientId = http.parseId(patient) ?? undefined;
    if (filter.patientId === undefined) throw errors.invalidQuery('patientId', 'must be a patient id');
  }
  const practitioner = http.queryText(ctx, 'practitionerId');
  if (practitioner !== undefined) {
    filter.practitionerId = http.parseId(practitioner) ?? undefined;
    if (filter.practitionerId === undefined)
      throw errors.invalidQuery('practitionerId', 'must be a practitioner id');
  }
  const status = http.queryText(ctx, 'status');
  if (status !== undefined) {
    const known = await statusCodes(knex);
    filter.statuses = status.split(',').map((code) => code.trim());
    const unknown = filter.statuses.find((code) => !known.includes(code));
    if (unknown !== undefined)
      throw errors.invalidQuery(
        'status',
        `names no status ${JSON.stringify(unknown)}; the statuses are ${known.join(', ')}`,
      );
  }
  return filter;
}
