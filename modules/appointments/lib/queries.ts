/**
 * Reads and writes of `appointments_appointment`. Lists are ordered by start time and id (the
 * start index). Writes let the constraints decide what is wrong, race-free, and name the field.
 *
 * A booking (a new appointment, or one moved to another time, practitioner or back to a booked
 * status) that overlaps another appointment of the same practitioner that still holds its time is
 * refused with 409 `practitioner_busy`, unless the caller asks to overbook and may. The check and
 * the write run in one transaction holding a transaction-level advisory lock on the practitioner,
 * so two bookings of one practitioner at once are checked one after the other.
 */
import type { Knex } from 'knex';
import type {
  Acting,
  ApiError,
  Caller,
  KeyKind,
  Page,
  PageRequest,
  WardSdk,
} from '../../../src/sdk/index.ts';
import {
  COLUMNS,
  presentAppointment,
  RELEASED_STATUSES,
  type Appointment,
  type AppointmentFields,
  type AppointmentInput,
  type AppointmentRow,
} from './appointment.ts';
import { findPractitioner, PRACTITIONER_TABLE, type Practitioner } from './practitioners.ts';

export const TABLE = 'appointments_appointment';
export const OVERBOOK = 'appointments.appointment.overbook';
/** The first key of the advisory lock of a practitioner's bookings ("appt"); the second is the practitioner's id. */
const LOCK_SPACE = 0x61707074;

type Db = Knex | Knex.Transaction;

/** Appointments with their practitioner's name (the booked name when there is no practitioner). */
function selectRows(db: Db) {
  return db({ a: TABLE })
    .leftJoin({ p: PRACTITIONER_TABLE }, 'p.id', 'a.practitioner_id')
    .select(
      'a.id',
      'a.patient_id',
      'a.practitioner_id',
      db.raw('coalesce(p.name, a.practitioner_name) as practitioner_name'),
      'a.start_at',
      'a.end_at',
      'a.status',
      'a.reason',
      'a.cancellation_reason',
      'a.overbooked',
      'a.created_at',
      'a.updated_at',
    );
}

export const SORT_KEY: readonly KeyKind[] = ['timestamp', 'integer'];

export interface AppointmentFilter {
  patientId?: number;
  practitionerId?: number;
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
  const query = selectRows(knex).select(knex.raw(`to_json(a.start_at) #>> '{}' as sort_start`));
  if (filter.patientId !== undefined) query.where('a.patient_id', filter.patientId);
  if (filter.practitionerId !== undefined) query.where('a.practitioner_id', filter.practitionerId);
  if (filter.statuses !== undefined) query.whereIn('a.status', filter.statuses);
  if (filter.from !== undefined) query.where('a.start_at', '>=', filter.from);
  if (filter.to !== undefined) query.where('a.start_at', '<', filter.to);
  if (page.after !== null) query.whereRaw('(a.start_at, a.id) > (?::timestamptz, ?)', page.after);
  const rows = (await query
    .orderBy([{ column: 'a.start_at' }, { column: 'a.id' }])
    .limit(page.limit + 1)
    .offset(page.offset)) as Array<AppointmentRow & { sort_start: string }>;
  return sdk.http.toPage(rows, page.limit, (row) => [row.sort_start, row.id], presentAppointment);
}

async function findRow(db: Db, id: number): Promise<AppointmentRow | undefined> {
  return (await selectRows(db).where('a.id', id).first()) as AppointmentRow | undefined;
}

export async function findAppointment(knex: Knex, id: number): Promise<Appointment | null> {
  const row = await findRow(knex, id);
  return row === undefined ? null : presentAppointment(row);
}

export async function findAppointments(knex: Knex, ids: readonly number[]): Promise<Appointment[]> {
  if (ids.length === 0) return [];
  return ((await selectRows(knex).whereIn('a.id', ids)) as AppointmentRow[]).map(presentAppointment);
}

export async function sameVisits(
  knex: Knex,
  visits: ReadonlyArray<{ patientId: number; start: string; end: string }>,
): Promise<Appointment[]> {
  if (visits.length === 0) return [];
  const rows = (await selectRows(knex)
    .whereRaw(
      `(a.patient_id, a.start_at, a.end_at) in (select * from unnest(?::int[], ?::timestamptz[], ?::timestamptz[]))`,
      [
        visits.map((visit) => visit.patientId),
        visits.map((visit) => visit.start),
        visits.map((visit) => visit.end),
      ],
    )
    .orderBy('a.id')) as AppointmentRow[];
  return rows.map(presentAppointment);
}

function toColumns(input: AppointmentFields): Partial<Record<keyof AppointmentRow, unknown>> {
  const values: Partial<Record<keyof AppointmentRow, unknown>> = {};
  for (const [field, column] of Object.entries(COLUMNS) as Array<
    [keyof AppointmentFields, keyof AppointmentRow]
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

/** What a booking would be once written: the fields that decide whether the practitioner is free. */
interface Booking {
  /** The appointment being moved, or null for a new one. */
  id: number | null;
  practitionerId: number;
  startAt: string | Date;
  endAt: string | Date;
}

/**
 * Whether the booking overlaps another appointment of its practitioner that holds its time: the
 * 409 when it does and the caller did not ask to overbook, the 403 when they asked and may not.
 * Returns whether the booking is an overbooking. Runs under the practitioner's lock.
 */
async function checkBusy(
  sdk: WardSdk,
  trx: Knex.Transaction,
  caller: Caller,
  booking: Booking,
  overbook: boolean,
): Promise<boolean> {
  // An end before the start is the check constraint's to refuse, naming the field.
  if (new Date(booking.endAt) <= new Date(booking.startAt)) return false;
  await trx.raw('select pg_advisory_xact_lock(?::int, ?::int)', [LOCK_SPACE, booking.practitionerId]);
  const query = selectRows(trx)
    .where('a.practitioner_id', booking.practitionerId)
    .whereNotIn('a.status', RELEASED_STATUSES)
    .where('a.start_at', '<', booking.endAt)
    .where('a.end_at', '>', booking.startAt)
    .orderBy([{ column: 'a.start_at' }, { column: 'a.id' }]);
  if (booking.id !== null) query.whereNot('a.id', booking.id);
  const other = (await query.first()) as AppointmentRow | undefined;
  if (other === undefined) return false;
  if (!overbook)
    throw new sdk.errors.ApiError(
      409,
      'practitioner_busy',
      `${other.practitioner_name} is booked from ${other.start_at.toISOString()} to ${other.end_at.toISOString()} (appointment ${other.id})`,
      `choose another time or practitioner; someone holding ${OVERBOOK} may book anyway with "overbook": true`,
    );
  if (!caller.can(OVERBOOK))
    throw new sdk.errors.ApiError(
      403,
      'permission_denied',
      `permission denied: ${OVERBOOK}`,
      `ask an administrator for a role that grants ${OVERBOOK}, or choose another time`,
    );
  return true;
}

function unknownPractitioner(sdk: WardSdk, id: number): ApiError {
  return sdk.errors.invalidBody(
    '/practitionerId',
    `there is no practitioner ${id}; GET /api/v1/appointments/practitioners lists them`,
  );
}

/** A deactivated practitioner keeps the appointments they have and takes no new ones. */
function inactivePractitioner(sdk: WardSdk, practitioner: Practitioner): ApiError {
  return sdk.errors.invalidBody(
    '/practitionerId',
    `practitioner ${practitioner.id} (${practitioner.name}) is inactive and takes no new appointments; choose an active one, or an administrator makes them active again`,
  );
}

/** A cancellation needs its reason; any other status clears a reason left from an earlier one. */
function cancellation(sdk: WardSdk, status: string, reason: string | null | undefined): string | null {
  if (status !== 'cancelled') return null;
  const text = reason?.trim() ?? '';
  if (text === '')
    throw sdk.errors.invalidBody('/cancellationReason', 'is required to cancel an appointment: say why');
  return text;
}

export async function createAppointment(
  sdk: WardSdk,
  acting: Acting,
  caller: Caller,
  input: AppointmentInput,
): Promise<Appointment> {
  const { overbook = false, ...fields } = input;
  const status = fields.status ?? 'booked';
  const cancellationReason = cancellation(sdk, status, fields.cancellationReason);
  const row = await writing(sdk, acting.knex, input, () =>
    acting.transaction(async (trx, bound) => {
      const practitioner = await findPractitioner(trx, fields.practitionerId!);
      if (practitioner === null) throw unknownPractitioner(sdk, fields.practitionerId!);
      if (!practitioner.active) throw inactivePractitioner(sdk, practitioner);
      const overbooked = RELEASED_STATUSES.includes(status)
        ? false
        : await checkBusy(
            sdk,
            trx,
            caller,
            { id: null, practitionerId: practitioner.id, startAt: fields.startAt!, endAt: fields.endAt! },
            overbook,
          );
      const [inserted] = (await trx(TABLE)
        .insert({
          ...toColumns(fields),
          practitioner_name: practitioner.name,
          cancellation_reason: cancellationReason,
          overbooked,
        })
        .returning('id')) as Array<{ id: number }>;
      const created = (await findRow(trx, inserted!.id))!;
      const shown = presentAppointment(created);
      await sdk.audit.record(bound, {
        action: 'record.create',
        kind: 'appointment',
        recordId: shown.id,
        patientId: shown.patientId,
        detail: { changes: sdk.audit.changes(null, shown) },
      });
      return created;
    }),
  );
  return presentAppointment(row);
}

/** Null when there is no such appointment. */
export async function updateAppointment(
  sdk: WardSdk,
  acting: Acting,
  caller: Caller,
  id: number,
  input: AppointmentInput,
): Promise<Appointment | null> {
  const { overbook = false, ...fields } = input;
  const row = await writing(sdk, acting.knex, input, () =>
    acting.transaction(async (trx, bound) => {
      const before = (await trx(TABLE).where({ id }).forUpdate().first()) as AppointmentRow | undefined;
      if (before === undefined) return undefined;
      const values = toColumns(fields);
      const status = fields.status ?? before.status;
      values.cancellation_reason = cancellation(
        sdk,
        status,
        fields.cancellationReason !== undefined ? fields.cancellationReason : before.cancellation_reason,
      );
      const practitionerId = fields.practitionerId ?? before.practitioner_id;
      if (fields.practitionerId !== undefined) {
        const practitioner = await findPractitioner(trx, fields.practitionerId);
        if (practitioner === null) throw unknownPractitioner(sdk, fields.practitionerId);
        if (!practitioner.active && practitioner.id !== before.practitioner_id)
          throw inactivePractitioner(sdk, practitioner);
        values.practitioner_name = practitioner.name;
      }
      const moved =
        fields.startAt !== undefined || fields.endAt !== undefined || fields.practitionerId !== undefined;
      const rebooked = RELEASED_STATUSES.includes(before.status) && !RELEASED_STATUSES.includes(status);
      if (practitionerId !== null && !RELEASED_STATUSES.includes(status) && (moved || rebooked))
        values.overbooked = await checkBusy(
          sdk,
          trx,
          caller,
          {
            id,
            practitionerId,
            startAt: fields.startAt ?? before.start_at,
            endAt: fields.endAt ?? before.end_at,
          },
          overbook,
        );
      await trx(TABLE)
        .where({ id })
        .update({ ...values, updated_at: trx.fn.now() });
      const after = (await findRow(trx, id))!;
      const shown = presentAppointment(after);
      await sdk.audit.record(bound, {
        action: 'record.update',
        kind: 'appointment',
        recordId: id,
        patientId: shown.patientId,
        detail: { changes: sdk.audit.changes(presentAppointment(before), shown) },
      });
      return after;
    }),
  );
  return row === undefined ? null : presentAppointment(row);
}
