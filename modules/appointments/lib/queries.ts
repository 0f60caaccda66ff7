/**
 * Reads and writes of `appointments_appointment`. Lists are ordered by start time and id (the
 * start index). Writes let the constraints decide what is wrong, race-free, and name the field.
 */
import type { Knex } from 'knex';
import type { Acting, ApiError, KeyKind, Page, PageRequest, WardSdk } from '../../../src/sdk/index.ts';
import {
  COLUMNS,
  presentAppointment,
  type Appointment,
  type AppointmentInput,
  type AppointmentRow,
} from './appointment.ts';

export const TABLE = 'appointments_appointment';
const SELECT = [
  'id',
  'patient_id',
  'practitioner_name',
  'start_at',
  'end_at',
  'status',
  'reason',
  'created_at',
  'updated_at',
];

export const SORT_KEY: readonly KeyKind[] = ['timestamp', 'integer'];

export interface AppointmentFilter {
  patientId?: number;
  statuses?: string[];
  /** Appointments starting at or after this instant (RFC 3339). */
  from?: string;
  /** Appointments starting before this instant. */
  to?: string;
}

export async function statusCodes(knex: Knex): Promise<string[]> {
  return (await knex('appointments_status').orderBy('id').pluck('code')) as string[];
}

export async function listAppointments(
  sdk: WardSdk,
  knex: Knex,
  filter: AppointmentFilter,
  page: PageRequest,
): Promise<Page<Appointment>> {
  // The cursor keeps start_at as PostgreSQL writes it in JSON: microseconds and offset included.
  const query = knex(TABLE).select(...SELECT, knex.raw(`to_json(start_at) #>> '{}' as sort_start`));
  if (filter.patientId !== undefined) query.where('patient_id', filter.patientId);
  if (filter.statuses !== undefined) query.whereIn('status', filter.statuses);
  if (filter.from !== undefined) query.where('start_at', '>=', filter.from);
  if (filter.to !== undefined) query.where('start_at', '<', filter.to);
  if (page.after !== null) query.whereRaw('(start_at, id) > (?::timestamptz, ?)', page.after);
  const rows = (await query
    .orderBy([{ column: 'start_at' }, { column: 'id' }])
    .limit(page.limit + 1)
    .offset(page.offset)) as Array<AppointmentRow & { sort_start: string }>;
  return sdk.http.toPage(rows, page.limit, (row) => [row.sort_start, row.id], presentAppointment);
}

export async function findAppointment(knex: Knex, id: number): Promise<Appointment | null> {
  const row = (await knex(TABLE).select(SELECT).where({ id }).first()) as AppointmentRow | undefined;
  return row === undefined ? null : presentAppointment(row);
}

export async function findAppointments(knex: Knex, ids: readonly number[]): Promise<Appointment[]> {
  if (ids.length === 0) return [];
  return ((await knex(TABLE).select(SELECT).whereIn('id', ids)) as AppointmentRow[]).map(presentAppointment);
}

export async function sameVisits(
  knex: Knex,
  visits: ReadonlyArray<{ patientId: number; start: string; end: string }>,
): Promise<Appointment[]> {
  if (visits.length === 0) return [];
  const rows = (await knex(TABLE)
    .select(SELECT)
    .whereRaw(
      `(patient_id, start_at, end_at) in (select * from unnest(?::int[], ?::timestamptz[], ?::timestamptz[]))`,
      [
        visits.map((visit) => visit.patientId),
        visits.map((visit) => visit.start),
        visits.map((visit) => visit.end),
      ],
    )
    .orderBy('id')) as AppointmentRow[];
  return rows.map(presentAppointment);
}

function toColumns(input: AppointmentInput): Partial<Record<keyof AppointmentRow, unknown>> {
  const values: Partial<Record<keyof AppointmentRow, unknown>> = {};
  for (const [field, column] of Object.entries(COLUMNS) as Array<
    [keyof AppointmentInput, keyof AppointmentRow]
  >)
    if (input[field] !== undefined) values[column] = input[field];
  return values;
}

/** The field a constraint failure is about, as a 422; null for any other error. */
async function refusal(
  sdk: WardSdk,
  knex: Knex,
  input: AppointmentInput,
  error: unknown,
): Promise<ApiError | null> {
  const { invalidBody } = sdk.errors;
  const failed = sdk.db.constraintError(error);
  switch (failed?.constraint) {
    case 'appointments_appointment_patient_id_foreign':
      return invalidBody('/patientId', `there is no patient ${input.patientId}`, error);
    case 'appointments_appointment_status_foreign': {
      const known = (await statusCodes(knex)).join(', ');
      const status = JSON.stringify(input.status);
      return invalidBody('/status', `there is no status ${status}; the statuses are ${known}`, error);
    }
    case 'appointments_appointment_ends_after_start':
      return input.endAt !== undefined
        ? invalidBody('/endAt', 'must be after startAt', error)
        : invalidBody('/startAt', 'must be before the appointment ends', error);
    default:
      return null;
  }
}

async function writing<T>(
  sdk: WardSdk,
  knex: Knex,
  input: AppointmentInput,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw (await refusal(sdk, knex, input, error)) ?? error;
  }
}

export async function createAppointment(
  sdk: WardSdk,
  acting: Acting,
  input: AppointmentInput,
): Promise<Appointment> {
  const [row] = await writing(sdk, acting.knex, input, () =>
    acting.transaction((trx) => trx(TABLE).insert(toColumns(input)).returning(SELECT)),
  );
  return presentAppointment(row as AppointmentRow);
}

/** Null when there is no such appointment. */
export async function updateAppointment(
  sdk: WardSdk,
  acting: Acting,
  id: number,
  input: AppointmentInput,
): Promise<Appointment | null> {
  const [row] = await writing(sdk, acting.knex, input, () =>
    acting.transaction((trx) =>
      trx(TABLE)
        .where({ id })
        .update({ ...toColumns(input), updated_at: trx.fn.now() })
        .returning(SELECT),
    ),
  );
  return row === undefined ? null : presentAppointment(row as AppointmentRow);
}
