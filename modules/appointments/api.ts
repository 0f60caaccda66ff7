/**
 * The appointments module's public API: what other modules may read and write of appointments,
 * each call on behalf of the caller's acting context (its transaction, its actor). Another module
 * reaches it with `sdk.modules.get<AppointmentsApi>('appointments')`, never by importing this file.
 */
import type { Acting, BatchTable, ModuleApiFactory } from '../../src/sdk/index.ts';
import { APPOINTMENT_LIMITS, type Appointment } from './lib/appointment.ts';
import {
  foldName,
  planPractitioners,
  practitionersByFoldedName,
  upsertPractitioners,
  type PractitionerPlan,
} from './lib/practitioners.ts';
import { findAppointments, sameVisits, statusCodes, TABLE } from './lib/queries.ts';

export type { PractitionerPlan };

/** What a batch write gives an appointment: every field but the id and the timestamps. */
export interface AppointmentFields {
  patientId: number;
  practitionerName: string;
  /** RFC 3339 with an offset. */
  startAt: string;
  endAt: string;
  /** A code of `statuses()`. */
  status: string;
  reason: string | null;
}

/** One row of `upsertMany`: with `id`, the appointment to change; without, a new one. */
export type AppointmentUpsert = AppointmentFields & { id?: number };

/** A visit: a patient's appointment from `start` to `end` (RFC 3339). */
export interface Visit {
  patientId: number;
  start: string;
  end: string;
}

const SPEC: BatchTable<AppointmentFields> = {
  table: TABLE,
  columns: [
    { name: 'patient_id', type: 'int', of: (row) => row.patientId },
    { name: 'practitioner_name', type: 'text', of: (row) => row.practitionerName },
    { name: 'start_at', type: 'timestamptz', of: (row) => row.startAt },
    { name: 'end_at', type: 'timestamptz', of: (row) => row.endAt },
    { name: 'status', type: 'text', of: (row) => row.status },
    { name: 'reason', type: 'text', of: (row) => row.reason },
  ],
  touch: 'updated_at',
};

const api = (({ sdk }) => {
  const check = (row: AppointmentFields, index: number) => {
    const problem =
      [...row.practitionerName].length > APPOINTMENT_LIMITS.practitionerName
        ? `the practitioner's name is longer than ${APPOINTMENT_LIMITS.practitionerName} characters`
        : row.reason !== null && [...row.reason].length > APPOINTMENT_LIMITS.reason
          ? `the reason is longer than ${APPOINTMENT_LIMITS.reason} characters`
          : null;
    if (problem !== null)
      throw new sdk.errors.WardError(
        'invalid_appointment',
        `appointment ${index} of the batch is invalid: ${problem}`,
        'check the row against the appointments module’s rules (GET /api/v1/openapi.json has them)',
      );
  };
  return {
    limits: APPOINTMENT_LIMITS,

    /** The codes of the statuses an appointment may have. */
    statuses(acting: Acting): Promise<string[]> {
      return statusCodes(acting.knex);
    },

    /** The appointments among these ids that exist, in no particular order. */
    getMany(acting: Acting, ids: readonly number[]): Promise<Appointment[]> {
      return findAppointments(acting.knex, ids);
    },

    /** Appointments of these patients with exactly these start and end instants, oldest id first. */
    sameVisits(acting: Acting, visits: readonly Visit[]): Promise<Appointment[]> {
      return sameVisits(acting.knex, visits);
    },

    /**
     * What `upsertMany` would do with these practitioner names (each with its number of
     * appointments): which existing practitioners they book with, which practitioners it would
     * create. Writes nothing: an import's preview shows it.
     */
    async planPractitioners(
      acting: Acting,
      names: ReadonlyArray<{ name: string; appointments: number }>,
    ): Promise<PractitionerPlan> {
      const existing = await practitionersByFoldedName(
        acting.knex,
        names.map((entry) => entry.name),
      );
      return planPractitioners(names, existing);
    },

    /**
     * Creates and changes many appointments in the caller's transaction: one INSERT and one UPDATE
     * whatever their number. Returns each row's id, in the order given. The patient and the status
     * must exist, and the end follow the start (the database refuses the batch otherwise); a row
     * breaking a length rule throws WardError `invalid_appointment`, and nothing is written.
     */
    async upsertMany(acting: Acting, rows: readonly AppointmentUpsert[]): Promise<number[]> {
      rows.forEach(check);
      return acting.transaction(async (trx, bound) => {
        // Each practitioner name finds (or becomes) a practitioner record, by its folded name.
        const practitioners = await upsertPractitioners(
          trx,
          rows.map((row) => row.practitionerName),
        );
        const spec: BatchTable<AppointmentFields> = {
          ...SPEC,
          columns: [
            ...SPEC.columns,
            {
              name: 'practitioner_id',
              type: 'int',
              of: (row) => practitioners.get(foldName(row.practitionerName)) ?? null,
            },
          ],
        };
        const ids = await sdk.batch.upsertRows(
          trx,
          spec,
          rows.map((row) => ({ id: row.id, columns: row })),
        );
        await sdk.audit.batch(bound, 'appointment', rows, ids);
        return ids;
      });
    },
  };
}) satisfies ModuleApiFactory<object>;

export type AppointmentsApi = ReturnType<typeof api>;
export default api;
