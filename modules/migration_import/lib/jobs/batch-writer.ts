/**
 * One batch of validated records, planned and written inside the caller's transaction: patients
 * first, so the batch's appointments and documents find the patients it just created. A
 * transaction-scoped advisory lock per source system serialises batches of concurrent jobs
 * importing from the same system, so two of them never both "create" the same unmapped record.
 */
import type { Acting, Knex } from '../../../../src/sdk/index.ts';
import type { ImportRecordItem, PlanStep, RecordKind } from '../index.ts';
import { emptyResults, type Results } from './job-row.ts';
import { planAppointments, writeAppointments } from './kinds/appointments.ts';
import { planDocuments, writeDocuments } from './kinds/documents.ts';
import { planPatients, writePatients } from './kinds/patients.ts';
import type { KindOutcome, Scope } from './kinds/types.ts';
import { lockedWardIds } from './source-map.ts';
import type { StoredWarning } from './warning-store.ts';

type ItemOf<K extends RecordKind> = Extract<ImportRecordItem, { kind: K }>;

function byKind(items: readonly ImportRecordItem[]) {
  const patient: Array<ItemOf<'patient'>> = [];
  const appointment: Array<ItemOf<'appointment'>> = [];
  const document: Array<ItemOf<'document'>> = [];
  for (const item of items) {
    if (item.kind === 'patient') patient.push(item);
    else if (item.kind === 'appointment') appointment.push(item);
    else document.push(item);
  }
  return { patient, appointment, document };
}

export interface BatchOutcome {
  results: Results;
  failures: StoredWarning[];
}

/** The lock `lockedWardIds` takes too (its key is spelled alike in its function). */
export async function lockSourceSystem(trx: Knex.Transaction, sourceSystem: string): Promise<void> {
  await trx.raw(`select pg_advisory_xact_lock(hashtext('migration_import:' || ?))`, [sourceSystem]);
}

/** `acting`: the job inside the batch's transaction, which the clinic modules' writes join. */
export async function writeBatch(
  acting: Acting,
  scope: Scope,
  items: readonly ImportRecordItem[],
): Promise<BatchOutcome> {
  const kinds = byKind(items);
  const trx = acting.knex as Knex.Transaction;
  // A batch with patients takes the lock with its lookup of their mappings, a round trip fewer.
  let mapped: Map<string, number> | undefined;
  if (kinds.patient.length > 0)
    mapped = await lockedWardIds(
      trx,
      scope.sourceSystem,
      'patient',
      kinds.patient.map((item) => item.record.sourceId),
    );
  else await lockSourceSystem(trx, scope.sourceSystem);
  const results = emptyResults();
  const failures: StoredWarning[] = [];
  const add = (kind: RecordKind, outcome: KindOutcome) => {
    results[kind] = outcome.counts;
    failures.push(...outcome.failures);
  };
  if (kinds.patient.length > 0)
    add(
      'patient',
      await writePatients(acting, scope, await planPatients(acting, scope, kinds.patient, mapped)),
    );
  if (kinds.appointment.length > 0)
    add(
      'appointment',
      await writeAppointments(acting, scope, await planAppointments(acting, scope, kinds.appointment)),
    );
  if (kinds.document.length > 0)
    add('document', await writeDocuments(acting, scope, await planDocuments(acting, scope, kinds.document)));
  return { results, failures };
}

/** What a batch would do, written nowhere: for previews. */
export async function planBatch(
  acting: Acting,
  scope: Scope,
  items: readonly ImportRecordItem[],
): Promise<{ steps: PlanStep[]; failures: StoredWarning[] }> {
  const kinds = byKind(items);
  const plans = [
    kinds.patient.length > 0 ? await planPatients(acting, scope, kinds.patient) : null,
    kinds.appointment.length > 0 ? await planAppointments(acting, scope, kinds.appointment) : null,
    kinds.document.length > 0 ? await planDocuments(acting, scope, kinds.document) : null,
  ];
  const steps: PlanStep[] = [];
  const failures: StoredWarning[] = [];
  for (const plan of plans) {
    if (plan === null) continue;
    steps.push(...plan.planned.map(({ step }) => step));
    failures.push(...plan.failures);
  }
  // Source order, whatever the kind, as the operator reads the file.
  steps.sort((a, b) => a.row - b.row);
  failures.sort((a, b) => a.row - b.row);
  return { steps, failures };
}

export function addResults(total: Results, delta: Results): Results {
  const sum = emptyResults();
  for (const kind of Object.keys(sum) as RecordKind[])
    for (const outcome of ['created', 'updated', 'skipped', 'failed'] as const)
      sum[kind][outcome] = (total[kind]?.[outcome] ?? 0) + delta[kind][outcome];
  return sum;
}
