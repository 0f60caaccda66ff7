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
import type { Acting } from '../../../../../src/sdk/index.ts';
import type { AppointmentFields } from '../../../../appointments/api.ts';
import { planItem } from '../../index.ts';
import type { ImportRecordItem, Values } from '../../index.ts';
import type { StoredWarning } from '../warning-store.ts';
import { SOURCE_MAP } from '../source-map.ts';
import { mappedPatientRecords, unknownPatient } from './references.ts';
import { writeSequenced } from './sequenced.ts';
import { failure, type KindOutcome, type KindPlan, type Planned, type Scope } from './types.ts';

type Item = Extract<ImportRecordItem, { kind: 'appointment' }>;
type Appointment = Awaited<ReturnType<Scope['peers']['appointments']['getMany']>>[number];

/** The appointments module's fields; the patient is null only in a preview, for one the same source creates first. */
export type AppointmentColumns = Omit<AppointmentFields, 'patientId'> & { patientId: number | null };

export async function planAppointments(
  acting: Acting,
  scope: Scope,
  items: readonly Item[],
): Promise<KindPlan<AppointmentColumns>> {
  const { appointments } = scope.peers;
  const { existing, refs } = await mappedPatientRecords(
    acting,
    scope,
    'appointment',
    appointments.getMany,
    items,
  );
  const sameVisit = await sameVisits(
    acting,
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
      patientSourceId: mapped === undefined ? record.patientSourceId : refs.sourceId(row.patientId),
      practitionerName: row.practitionerName,
      start: row.startAt.toISOString(),
      end: row.endAt.toISOString(),
      status: row.status as Values<'appointment'>['status'],
      ...(row.reason === null ? {} : { reason: row.reason }),
    };
    const step = planItem(item, row === undefined ? null : { wardId: row.id, values: before! });
    const after = step.after as Values<'appointment'>;
    planned.push({
      step,
      columns: {
        patientId,
        practitionerName: after.practitionerName,
        startAt: after.start,
        endAt: after.end,
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
  acting: Acting,
  scope: Scope,
  visits: ReadonlyArray<{ patientId: number; start: string; end: string }>,
): Promise<(patientId: number, start: string, end: string) => Appointment | undefined> {
  const found = new Map<string, Appointment[]>();
  const candidates = await scope.peers.appointments.sameVisits(acting, visits);
  if (candidates.length > 0) {
    const ownIds = new Set(
      (await acting
        .knex(SOURCE_MAP)
        .where({ kind: 'appointment', job_id: scope.jobId })
        .whereRaw('ward_id = any(?::int[])', [candidates.map((row) => row.id)])
        .pluck('ward_id')) as number[],
    );
    for (const row of candidates) {
      if (ownIds.has(row.id)) continue;
      const key = visitKey(row.patientId, row.startAt.toISOString(), row.endAt.toISOString());
      found.set(key, [...(found.get(key) ?? []), row]);
    }
  }
  return (patientId, start, end) => found.get(visitKey(patientId, start, end))?.shift();
}

export function writeAppointments(
  acting: Acting,
  scope: Scope,
  plan: KindPlan<AppointmentColumns>,
): Promise<KindOutcome> {
  // Execute fails a record whose patient is not mapped (unknownPatient): every one written has one.
  return writeSequenced(acting, scope, 'appointment', plan as KindPlan<AppointmentFields>, (bound, rows) =>
    scope.peers.appointments.upsertMany(bound, rows),
  );
}
