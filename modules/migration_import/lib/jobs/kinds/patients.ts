/**
 * Patients: planned against the Ward record their source id maps to, written in batches. The MRN
 * is unique in Ward: a new patient whose MRN another Ward patient already has is not created (nor
 * merged, which only a person should decide); its row fails with `mrn_taken`. A source without an
 * MRN gives the patient its source id as MRN, as Synthea's own FHIR export does.
 */
import type { Knex } from 'knex';
import { nameKey, searchText } from '../../../../patients/lib/fold.ts';
import type { Address, PatientRow as WardPatientRow } from '../../../../patients/lib/patient.ts';
import { planItem } from '../../index.ts';
import type { ImportAddress, ImportRecordItem, PlanStep, Values } from '../../index.ts';
import type { StoredWarning } from '../warning-store.ts';
import { upsertMappings, wardIds } from '../source-map.ts';
import { insertUnique, updateRows, type TableSpec } from './sql.ts';
import { failure, tally, type KindOutcome, type KindPlan, type Planned, type Scope } from './types.ts';

type Item = Extract<ImportRecordItem, { kind: 'patient' }>;
type Db = Knex | Knex.Transaction;

/** The patients module's row, as far as an import reads and writes it. */
type PatientRow = Omit<WardPatientRow, 'created_at' | 'updated_at'>;

export type PatientColumns = Omit<PatientRow, 'id'>;

const TABLE = 'patients_patient';

const SPEC: TableSpec<PatientColumns> = {
  table: TABLE,
  columns: [
    { name: 'mrn', type: 'text', of: (row) => row.mrn },
    { name: 'family_name', type: 'text', of: (row) => row.family_name },
    { name: 'given_name', type: 'text', of: (row) => row.given_name },
    { name: 'birth_date', type: 'date', of: (row) => row.birth_date },
    { name: 'sex', type: 'text', of: (row) => row.sex },
    { name: 'phone', type: 'text', of: (row) => row.phone },
    { name: 'email', type: 'text', of: (row) => row.email },
    {
      name: 'address',
      type: 'text',
      cast: 'jsonb',
      of: (row) => (row.address === null ? null : JSON.stringify(row.address)),
    },
    // The patients module's folded columns, which its search and duplicate check read.
    {
      name: 'search_text',
      type: 'text',
      of: (row) =>
        searchText({
          mrn: row.mrn,
          familyName: row.family_name,
          givenName: row.given_name,
          phone: row.phone,
        }),
    },
    { name: 'name_key', type: 'text', of: (row) => nameKey(row.family_name, row.given_name) },
  ],
  touch: 'updated_at',
};

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined && field !== null)) as T;

function addressValues(address: Address | null): ImportAddress | undefined {
  if (address === null) return undefined;
  const { line, ...rest } = address;
  return defined({ lines: line ?? [], ...rest });
}

/** A Ward patient in import terms, so `planItem` can compare it with the incoming record. */
function values(row: PatientRow): Values<'patient'> {
  return defined({
    mrn: row.mrn,
    familyName: row.family_name,
    givenName: row.given_name,
    birthDate: row.birth_date ?? '',
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
    family_name: after.familyName,
    given_name: after.givenName,
    birth_date: after.birthDate,
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

export async function planPatients(
  db: Db,
  scope: Scope,
  items: readonly Item[],
): Promise<KindPlan<PatientColumns>> {
  const mapped = await wardIds(
    db,
    scope.sourceSystem,
    'patient',
    items.map((item) => item.record.sourceId),
  );
  const rows =
    mapped.size === 0
      ? []
      : ((await db(TABLE)
          .whereIn('id', [...mapped.values()])
          .select(
            'id',
            'mrn',
            'family_name',
            'given_name',
            db.raw(`to_char(birth_date, 'YYYY-MM-DD') as birth_date`),
            'sex',
            'phone',
            'email',
            'address',
          )) as PatientRow[]);
  const existing = new Map(rows.map((row) => [row.id, row]));
  const planned = items.map((item) => {
    const row = existing.get(mapped.get(item.record.sourceId) ?? -1);
    // A mapped patient someone deleted in Ward is created again, and the mapping moves to the new one.
    const step = planItem(item, row === undefined ? null : { wardId: row.id, values: values(row) });
    return { step, columns: columns(step.after as Values<'patient'>, item.record.sourceId) };
  });
  return withoutTakenMrns(db, scope, planned);
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
  db: Db,
  scope: Scope,
  planned: Array<Planned<PatientColumns>>,
): Promise<KindPlan<PatientColumns>> {
  const creates = planned.filter(({ step }) => step.action === 'create');
  if (creates.length === 0) return { planned, failures: [] };
  const owners = (await db(TABLE)
    .whereIn(
      'mrn',
      creates.map(({ columns }) => columns.mrn),
    )
    .select('id', 'mrn')) as Array<{ id: number; mrn: string }>;
  const owner = new Map(owners.map((row) => [row.mrn, row.id]));
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
  db: Db,
  scope: Scope,
  plan: KindPlan<PatientColumns>,
): Promise<KindOutcome> {
  const creates = plan.planned.filter(({ step }) => step.action === 'create');
  const inserted = await insertUnique(
    db,
    SPEC,
    creates.map(({ columns }) => columns),
    'mrn',
  );
  const failures = [...plan.failures];
  const mapped: Array<{ sourceId: string; wardId: number }> = [];
  const claimed = new Set<number>();
  const taken: typeof creates = [];
  for (const planned of creates) {
    const id = inserted.get(planned.columns.mrn);
    // Two records of one batch with one MRN: the first is created, the second finds it taken.
    if (id === undefined || claimed.has(id)) taken.push(planned);
    else {
      claimed.add(id);
      mapped.push({ sourceId: planned.step.sourceId, wardId: id });
    }
  }
  if (taken.length > 0) {
    const owners = (await db(TABLE)
      .whereIn(
        'mrn',
        taken.map(({ columns }) => columns.mrn),
      )
      .select('id', 'mrn')) as Array<{ id: number; mrn: string }>;
    const owner = new Map(owners.map((row) => [row.mrn, row.id]));
    // Taken since the plan was made (a concurrent import, staff entering the patient).
    for (const { step, columns } of taken) failures.push(mrnTaken(step, columns.mrn, owner.get(columns.mrn)));
  }
  const updates = plan.planned.filter(({ step }) => step.action === 'update');
  await updateRows(
    db,
    SPEC,
    updates.map(({ step, columns }) => ({ id: Number(step.wardId), columns })),
  );
  await upsertMappings(db, scope, 'patient', [
    ...mapped,
    ...updates.map(({ step }) => ({ sourceId: step.sourceId, wardId: Number(step.wardId) })),
  ]);
  return { counts: tally({ planned: plan.planned, failures }, mapped.length), failures };
}
