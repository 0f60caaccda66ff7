/**
 * An appointment as the API shows it (camelCase) and as `appointments_appointment` stores it, and
 * the JSON Schemas of the bodies that create and change one. Which statuses exist and whether the
 * patient exists are the database's to say (foreign keys), not the schema's.
 */
export interface Appointment {
  id: number;
  patientId: number;
  practitionerName: string;
  startAt: Date;
  endAt: Date;
  /** A code of `appointments_status`: booked, arrived, fulfilled, cancelled, noshow. */
  status: string;
  reason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AppointmentRow {
  id: number;
  patient_id: number;
  practitioner_name: string;
  start_at: Date;
  end_at: Date;
  status: string;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export type AppointmentInput = Partial<
  Omit<Appointment, 'id' | 'startAt' | 'endAt' | 'createdAt' | 'updatedAt'>
> & {
  /** RFC 3339 with an offset, as sent: PostgreSQL keeps its microseconds, a Date would not. */
  startAt?: string;
  endAt?: string;
};

/** API field → column, for the fields a client may write. */
export const COLUMNS: Readonly<Record<keyof AppointmentInput, keyof AppointmentRow>> = {
  patientId: 'patient_id',
  practitionerName: 'practitioner_name',
  startAt: 'start_at',
  endAt: 'end_at',
  status: 'status',
  reason: 'reason',
};

export function presentAppointment(row: AppointmentRow): Appointment {
  return {
    id: row.id,
    patientId: row.patient_id,
    practitionerName: row.practitioner_name,
    startAt: row.start_at,
    endAt: row.end_at,
    status: row.status,
    reason: row.reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Longest values, in characters, of the free-text fields: the API's schema and migration_import's checks. */
export const APPOINTMENT_LIMITS = { practitionerName: 255, reason: 2000 } as const;

const PROPERTIES = {
  patientId: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
  practitionerName: { type: 'string', maxLength: APPOINTMENT_LIMITS.practitionerName },
  // date-time requires the offset: a time without one means different instants in different clinics.
  startAt: { type: 'string', format: 'date-time' },
  endAt: { type: 'string', format: 'date-time' },
  status: { type: 'string', minLength: 1, maxLength: 20 },
  reason: { anyOf: [{ type: 'string', maxLength: APPOINTMENT_LIMITS.reason }, { type: 'null' }] },
};

export const CREATE_APPOINTMENT = {
  type: 'object',
  additionalProperties: false,
  required: ['patientId', 'startAt', 'endAt'],
  properties: PROPERTIES,
};

export const UPDATE_APPOINTMENT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: PROPERTIES,
};
