/**
 * An appointment as the API shows it (camelCase) and as `appointments_appointment` stores it, and
 * the JSON Schemas of the bodies that create and change one. Which statuses exist and whether the
 * patient exists are the database's to say (foreign keys), not the schema's.
 */
export interface Appointment {
  id: number;
  patientId: number;
  /** The practitioner record, or null for an appointment booked without one. */
  practitionerId: number | null;
  /** The practitioner's name; without a practitioner, the name it was booked or imported with. */
  practitionerName: string;
  startAt: Date;
  endAt: Date;
  /** A code of `appointments_status`: booked, arrived, fulfilled, cancelled, noshow. */
  status: string;
  reason: string | null;
  /** Why it was cancelled: required when the status becomes cancelled. */
  cancellationReason: string | null;
  /** Booked over another booked appointment of the same practitioner, by someone allowed to. */
  overbooked: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface AppointmentRow {
  id: number;
  patient_id: number;
  practitioner_id: number | null;
  practitioner_name: string;
  start_at: Date;
  end_at: Date;
  status: string;
  reason: string | null;
  cancellation_reason: string | null;
  overbooked: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The fields a client writes. */
export interface AppointmentFields {
  patientId?: number;
  practitionerId?: number;
  /** RFC 3339 with an offset, as sent: PostgreSQL keeps its microseconds, a Date would not. */
  startAt?: string;
  endAt?: string;
  status?: string;
  reason?: string | null;
  cancellationReason?: string | null;
}

export type AppointmentInput = AppointmentFields & {
  /** Book even if the practitioner is busy then (needs appointments.appointment.overbook). */
  overbook?: boolean;
};

/** API field → column, for the fields a client may write. */
export const COLUMNS: Readonly<Record<keyof AppointmentFields, keyof AppointmentRow>> = {
  patientId: 'patient_id',
  practitionerId: 'practitioner_id',
  startAt: 'start_at',
  endAt: 'end_at',
  status: 'status',
  reason: 'reason',
  cancellationReason: 'cancellation_reason',
};

export function presentAppointment(row: AppointmentRow): Appointment {
  return {
    id: row.id,
    patientId: row.patient_id,
    practitionerId: row.practitioner_id,
    practitionerName: row.practitioner_name,
    startAt: row.start_at,
    endAt: row.end_at,
    status: row.status,
    reason: row.reason,
    cancellationReason: row.cancellation_reason,
    overbooked: row.overbooked,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Longest values, in characters, of the free-text fields: the API's schema and migration_import's checks. */
export const APPOINTMENT_LIMITS = { practitionerName: 255, reason: 2000 } as const;

/** The statuses of an appointment that holds its practitioner's time: the busy check ignores the others. */
export const RELEASED_STATUSES: readonly string[] = ['cancelled', 'noshow'];

const ID = { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 };
const PROPERTIES = {
  patientId: ID,
  practitionerId: ID,
  // date-time requires the offset: a time without one means different instants in different clinics.
  startAt: { type: 'string', format: 'date-time' },
  endAt: { type: 'string', format: 'date-time' },
  status: { type: 'string', minLength: 1, maxLength: 20 },
  reason: { anyOf: [{ type: 'string', maxLength: APPOINTMENT_LIMITS.reason }, { type: 'null' }] },
  cancellationReason: {
    anyOf: [{ type: 'string', maxLength: APPOINTMENT_LIMITS.reason }, { type: 'null' }],
  },
  overbook: { type: 'boolean' },
};

export const CREATE_APPOINTMENT = {
  type: 'object',
  additionalProperties: false,
  required: ['patientId', 'practitionerId', 'startAt', 'endAt'],
  properties: PROPERTIES,
};

export const UPDATE_APPOINTMENT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: PROPERTIES,
};
