/**
 * Appointments: their patient must be mapped by the time the row is written (earlier in this
 * source, or imported before from the same source system), and their status must be one Ward
 * knows (`appointments_status`); rows that fail either are reported, not written.
 *
 * An appointment this source system has not sent before is the same visit as a Ward appointment of
 * the same patient with the same start and end that another job (or a person) wrote: one clinic's
 * CSV and FHIR exports name their encounters with different ids, and importing both must not book
 * every visit twice. Appointments this job wrote itself are never matched so, so two visits that
 * one source places at the same time stay two.
 */
import type { Knex } from 'knex';
import type { AppointmentRow as WardAppointmentRow } from '../../../../appointments/lib/appointment.ts';
import { foldName, upsertPractitioners } from '../../../../appointments/lib/practitioners.ts';
import { planItem } from '../../index.ts';
import type { ImportRecordItem, Values } from '../../index.ts';
import type { StoredWarning } from '../warning-store.ts';
import { SOURCE_MAP } from '../source-map.ts';
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
  const sameVisit = await sameVisits(
    db,
    scope,
    items.flatMap((item) => {
      const patientId = refs.wardId(item.record.patientSourceId);
      return existing(item.record.sourceId) === undefined && patientId !== undefined
        ? [{ patientId, start: item.record.start, end: item.record.end }]
        : [];
    }),
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
    const mapped = existing(record.sourceId);
    const row = mapped ?? (patientId === null ? undefined : sameVisit(patientId, record.start, record.end));
    const before: Values<'appointment'> | undefined = row && {
      patientSourceId: mapped === undefined ? record.patientSourceId : refs.sourceId(row.patient_id),
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

const visitKey = (patientId: number, start: string, end: string) =>
  `${patientId} ${new Date(start).getTime()} ${new Date(end).getTime()}`;

/**
 * Ward appointments that are the same visit as the given ones (same patient, start and end) and
 * that this job did not write; the function it returns hands each out once.
 */
async function sameVisits(
  db: Db,
  scope: Scope,
  visits: ReadonlyArray<{ patientId: number; start: string; end: string }>,
): Promise<(patientId: number, start: string, end: string) => AppointmentRow | undefined> {
  const found = new Map<string, AppointmentRow[]>();
  if (visits.length > 0) {
    const rows = (await db(TABLE)
      .whereRaw(
        `(patient_id, start_at, end_at) in (select * from unnest(?::int[], ?::timestamptz[], ?::timestamptz[]))`,
        [
          visits.map((visit) => visit.patientId),
          visits.map((visit) => visit.start),
          visits.map((visit) => visit.end),
        ],
      )
      .whereNotExists((mapped) =>
        mapped
          .from(SOURCE_MAP)
          .where({ kind: 'appointment', job_id: scope.jobId })
          .whereRaw(`ward_id = ${TABLE}.id`),
      )
      .orderBy('id')) as AppointmentRow[];
    for (const row of rows) {
      const key = visitKey(row.patient_id, row.start_at.toISOString(), row.end_at.toISOString());
      found.set(key, [...(found.get(key) ?? []), row]);
    }
  }
  return (patientId, start, end) => found.get(visitKey(patientId, start, end))?.shift();
}

/** Each imported practitioner name finds (or becomes) a practitioner record, by its folded name. */
export async function writeAppointments(
  db: Db,
  scope: Scope,
  plan: KindPlan<AppointmentColumns>,
): Promise<KindOutcome> {
  const practitioners = await upsertPractitioners(
    db,
    plan.planned.map(({ columns }) => columns.practitioner_name),
  );
  const spec: TableSpec<AppointmentColumns> = {
    ...SPEC,
    columns: [
      ...SPEC.columns,
      {
        name: 'practitioner_id',
        type: 'int',
        of: (row) => practitioners.get(foldName(row.practitioner_name)) ?? null,
      },
    ],
  };
  return writeSequenced(db, scope, 'appointment', spec, plan);
}
