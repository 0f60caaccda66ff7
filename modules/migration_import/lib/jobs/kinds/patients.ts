/**
 * Patients: planned against the Ward record their source id maps to, written in batches. The MRN
 * is unique in Ward: a new patient whose MRN another Ward patient already has is not created (nor
 * merged, which only a person should decide); its row fails with `mrn_taken`. A source without an
 * MRN gives the patient its source id as MRN, as Synthea's own FHIR export does.
 */
import type { Acting } from '../../../../../src/sdk/index.ts';
import type { PatientFields } from '../../../../patients/api.ts';
import { planItem } from '../../index.ts';
import type { ImportAddress, ImportRecordItem, PlanStep, Values } from '../../index.ts';
import type { StoredWarning } from '../warning-store.ts';
import { upsertMappings, wardIds } from '../source-map.ts';
import { failure, tally, type KindOutcome, type KindPlan, type Planned, type Scope } from './types.ts';

type Item = Extract<ImportRecordItem, { kind: 'patient' }>;

/** What the patients module keeps of a patient, as its API writes it. */
export type PatientColumns = PatientFields;
type Address = NonNullable<PatientFields['address']>;

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined && field !== null)) as T;

function addressValues(address: Address | null): ImportAddress | undefined {
  if (address === null) return undefined;
  const { line, ...rest } = address;
  return defined({ lines: line ?? [], ...rest });
}

/** A Ward patient in import terms, so `planItem` can compare it with the incoming record. */
function values(row: PatientFields): Values<'patient'> {
  return defined({
    mrn: row.mrn,
    familyName: row.familyName,
    givenName: row.givenName,
    birthDate: row.birthDate ?? '',
    sex: row.sex,
    phone: row.phone ?? undefined,
    email: row.email ?? undefined,
    address: addressValues(row.address),
  }) as Values<'patient'>;
}

function columns(after: Values<'patient'>, sourceId: string): PatientColumns {
  const address = after.address;
  return {
    // NFC, as the MRNs checks.ts gives and the patients API stores.
    mrn: after.mrn ?? sourceId.normalize('NFC'),
    familyName: after.familyName,
    givenName: after.givenName,
    birthDate: after.birthDate,
    sex: after.sex,
    phone: after.phone ?? null,
    email: after.email ?? null,
    address:
      address === undefined
        ? null
        : defined({
            line: address.lines.length === 0 ? undefined : address.lines,
            city: address.city,
            state: address.state,
            postalCode: address.postalCode,
            country: address.country,
          }),
  };
}

/** `mapped`: the items' mappings when the caller already looked them up (`lockedWardIds`). */
export async function planPatients(
  acting: Acting,
  scope: Scope,
  items: readonly Item[],
  mapped?: ReadonlyMap<string, number>,
): Promise<KindPlan<PatientColumns>> {
  mapped ??= await wardIds(
    acting.knex,
    scope.sourceSystem,
    'patient',
    items.map((item) => item.record.sourceId),
  );
  const rows = mapped.size === 0 ? [] : await scope.peers.patients.getMany(acting, [...mapped.values()]);
  const existing = new Map(rows.map((row) => [row.id, row]));
  const planned = items.map((item) => {
    const row = existing.get(mapped.get(item.record.sourceId) ?? -1);
    // A mapped patient someone deleted in Ward is created again, and the mapping moves to the new one.
    const step = planItem(item, row === undefined ? null : { wardId: row.id, values: values(row) });
    return { step, columns: columns(step.after as Values<'patient'>, item.record.sourceId) };
  });
  // Execute learns the same from its own inserts (writePatients), a round trip fewer per batch.
  return scope.mode === 'preview' ? withoutTakenMrns(acting, scope, planned) : { planned, failures: [] };
}

/** Why a new patient is not created: its MRN is another Ward patient's (named to those who may read patients). */
const mrnTaken = (step: PlanStep, mrn: string, owner: number | undefined): StoredWarning =>
  failure(
    step,
    'mrn',
    'mrn_taken',
    owner === undefined
      ? `MRN ${JSON.stringify(mrn)} is also the MRN of a new patient earlier in this source, which is not this source's patient ${JSON.stringify(step.sourceId)}; give each patient its own MRN in the source, or merge them in Ward once imported, then execute the job again`
      : `MRN ${JSON.stringify(mrn)} already belongs to Ward patient ${owner}, which is not this source's patient ${JSON.stringify(step.sourceId)}; merge or renumber one of them in Ward, then execute the job again`,
  );

/**
 * New patients whose MRN a Ward patient already has, or an earlier new patient of the run takes
 * (`scope.plannedMrns`, which a preview keeps across its batches, as nothing is written), fail
 * with `mrn_taken` in the plan, so preview predicts what execute refuses.
 */
async function withoutTakenMrns(
  acting: Acting,
  scope: Scope,
  planned: Array<Planned<PatientColumns>>,
): Promise<KindPlan<PatientColumns>> {
  const creates = planned.filter(({ step }) => step.action === 'create');
  if (creates.length === 0) return { planned, failures: [] };
  const owner = await scope.peers.patients.mrnOwners(
    acting,
    creates.map(({ columns }) => columns.mrn),
  );
  const claimed = scope.plannedMrns ?? new Set<string>();
  const failures: StoredWarning[] = [];
  const kept = planned.filter(({ step, columns }) => {
    if (step.action !== 'create') return true;
    const mrn = columns.mrn;
    if (owner.has(mrn) || claimed.has(mrn)) {
      failures.push(mrnTaken(step, mrn, owner.get(mrn)));
      return false;
    }
    claimed.add(mrn);
    return true;
  });
  return { planned: kept, failures };
}

export async function writePatients(
  acting: Acting,
  scope: Scope,
  plan: KindPlan<PatientColumns>,
): Promise<KindOutcome> {
  const written = plan.planned.filter(({ step }) => step.action === 'create' || step.action === 'update');
  const outcomes = await scope.peers.patients.upsertMany(
    acting,
    written.map(({ step, columns }) =>
      step.action === 'update' ? { ...columns, id: Number(step.wardId) } : columns,
    ),
  );
  const failures = [...plan.failures];
  const mapped: Array<{ sourceId: string; wardId: number }> = [];
  const fresh = new Set(outcomes.flatMap((outcome) => (outcome.status === 'created' ? [outcome.id] : [])));
  let created = 0;
  outcomes.forEach((outcome, index) => {
    const { step, columns } = written[index]!;
    // Taken by a Ward patient (execute plans without asking: the insert tells), or by an earlier
    // record of the batch, which is named as such, as preview names it.
    if (outcome.status === 'mrn_taken')
      failures.push(
        mrnTaken(
          step,
          columns.mrn,
          outcome.owner !== undefined && fresh.has(outcome.owner) ? undefined : outcome.owner,
        ),
      );
    else {
      if (outcome.status === 'created') created++;
      mapped.push({ sourceId: step.sourceId, wardId: outcome.id });
    }
  });
  await upsertMappings(acting.knex, scope, 'patient', mapped);
  return { counts: tally({ planned: plan.planned, failures }, created), failures };
}
