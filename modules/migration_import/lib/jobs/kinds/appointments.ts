/**
 * Appointments: their patient must be mapped by the time the row is written (earlier in this
 * source, or imported before from the same source system), and their status must be one Ward
 * knows (`appointments_status`); rows that fail either are reported, not written.
 */
import type { Knex } from 'knex';
import type { AppointmentRow as WardAppointmentRow } from '../../../../appointments/lib/appointment.ts';
import { planItem } from '../../index.ts';
import type { ImportRecordItem, Values } from '../../index.ts';
import type { StoredWarning } from '../warning-store.ts';
import { mappedPatientRecords, unknownPatient } from './references.ts';
import { writeSequenced } from './sequenced.ts';
import type { TableSpec } from './sql.ts';
import { failure, type KindOutcome, type KindPlan, type Planned, type Scope } from './types.ts';

type Item = Extract<ImportRecordItem, { kind: 'appointment' }>;
type Db = Knex | Knex.Transaction;

/** The appointments module's row, as far as an import reads and writes it. */
type AppointmentRow = Omit<WardAppointmentRow, 'created_at' | 'updated_at'>;

export interface AppointmentColumns {
  /** Null only in a preview, for a patient the same source creates first. */
  patient_id: number | null;
  practitioner_name: string;
  start_at: string;
  end_at: string;
  status: string;
  reason: string | null;
}

const TABLE = 'appointments_appointment';

const SPEC: TableSpec<AppointmentColumns> = {
  table: TABLE,
  columns: [
    { name: 'patient_id', type: 'int', of: (row) => row.patient_id },
    { name: 'practitioner_name', type: 'text', of: (row) => row.practitioner_name },
    { name: 'start_at', type: 'timestamptz', of: (row) => row.start_at },
    { name: 'end_at', type: 'timestamptz', of: (row) => row.end_at },
    { name: 'status', type: 'text', of: (row) => row.status },
    { name: 'reason', type: 'text', of: (row) => row.reason },
  ],
  touch: 'updated_at',
};

export async function planAppointments(
  db: Db,
  scope: Scope,
  items: readonly Item[],
): Promise<KindPlan<AppointmentColumns>> {
  const { existing, refs } = await mappedPatientRecords<AppointmentRow>(
    db,
    scope,
    'appointment',
    TABLE,
    items,
  );
  const planned: Array<Planned<AppointmentColumns>> = [];
  const failures: StoredWarning[] = [];
  for (const item of items) {
    const { record } = item;
    const patientId = refs.wardId(record.patientSourceId) ?? null;
    if (!scope.statuses.has(record.status)) {
      failures.push(
        failure(
          item,
          'status',
          'unknown_status',
          `status ${JSON.stringify(record.status)} is not one Ward knows; expected one of ${[...scope.statuses].join(', ')}`,
        ),
      );
      continue;
    }
    const unmapped = unknownPatient(scope, item, patientId);
    if (unmapped !== null) {
      failures.push(unmapped);
      continue;
    }
    const row = existing(record.sourceId);
    const before: Values<'appointment'> | undefined = row && {
      patientSourceId: refs.sourceId(row.patient_id),
      practitionerName: row.practitioner_name,
      start: row.start_at.toISOString(),
      end: row.end_at.toISOString(),
      status: row.status as Values<'appointment'>['status'],
      ...(row.reason === null ? {} : { reason: row.reason }),
    };
    const step = planItem(item, row === undefined ? null : { wardId: row.id, values: before! });
    const after = step.after as Values<'appointment'>;
    planned.push({
      step,
      columns: {
        patient_id: patientId,
        practitioner_name: after.practitionerName,
        start_at: after.start,
        end_at: after.end,
        status: after.status,
        reason: after.reason ?? null,
      },
    });
  }
  return { planned, failures };
}

export function writeAppointments(
  db: Db,
  scope: Scope,
  plan: KindPlan<AppointmentColumns>,
): Promise<KindOutcome> {
  return writeSequenced(db, scope, 'appointment', SPEC, plan);
}
