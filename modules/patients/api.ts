/**
 * The patients module's public API: what other modules may read and write of patients, each call
 * on behalf of the caller's acting context (its transaction, its actor). Another module reaches it
 * with `sdk.modules.get<PatientsApi>('patients')`, never by importing this file.
 */
import type { Acting, BatchTable, ModuleApiFactory } from '../../src/sdk/index.ts';
import { fold, nameKey, searchRest, searchText } from './lib/fold.ts';
import { PATIENT_LIMITS, textFault, type Patient } from './lib/patient.ts';
import { findPatient, findPatients, mrnOwners, TABLE } from './lib/queries.ts';

/** What a batch write gives a patient: every field but the id and the timestamps. */
export type PatientFields = Omit<Patient, 'id' | 'createdAt' | 'updatedAt'>;

/** One row of `upsertMany`: with `id`, the patient to change; without, a new one. */
export type PatientUpsert = PatientFields & { id?: number };

/** What became of one row of `upsertMany`, in the order given. */
export type UpsertOutcome =
  | { status: 'created' | 'updated'; id: number }
  /** A new patient whose MRN another has (`owner`; undefined when it went meanwhile): not created. */
  | { status: 'mrn_taken'; owner: number | undefined };

const SPEC: BatchTable<PatientFields> = {
  table: TABLE,
  columns: [
    { name: 'mrn', type: 'text', of: (row) => row.mrn },
    { name: 'family_name', type: 'text', of: (row) => row.familyName },
    { name: 'given_name', type: 'text', of: (row) => row.givenName },
    { name: 'birth_date', type: 'date', of: (row) => row.birthDate },
    { name: 'sex', type: 'text', of: (row) => row.sex },
    { name: 'phone', type: 'text', of: (row) => row.phone },
    { name: 'email', type: 'text', of: (row) => row.email },
    {
      name: 'address',
      type: 'text',
      cast: 'jsonb',
      of: (row) => (row.address === null ? null : JSON.stringify(row.address)),
    },
    // The folded columns the search and the probable-duplicate check read, as every write keeps them.
    { name: 'search_text', type: 'text', of: (row) => searchText(row) },
    { name: 'name_key', type: 'text', of: (row) => nameKey(row.familyName, row.givenName) },
    { name: 'family_fold', type: 'text', of: (row) => fold(row.familyName) },
    { name: 'given_fold', type: 'text', of: (row) => fold(row.givenName) },
    { name: 'search_rest', type: 'text', of: (row) => searchRest(row) },
  ],
  touch: 'updated_at',
};

const COLUMNS = SPEC.columns.map((column) => column.name);

/**
 * One statement over a staged batch (`sdk.batch.stage`): updates the rows with an id, inserts
 * those without in the batch's order, skipping a taken MRN, and returns the new patients
 * (`created`) and the patients that already held a skipped row's MRN. That lookup reads the
 * table as the statement began, so a MRN an earlier row of the batch took has no owner here; an
 * `= any` of the skipped MRNs keeps it on the MRN index whatever the planner guesses of the
 * staged table, which has no statistics.
 */
const writeStaged = (staged: string): string => `
  with updated as (
    update ${TABLE} as t set ${COLUMNS.map((name) => `${name} = s.${name}`).join(', ')}, ${SPEC.touch} = now()
    from ${staged} as s where s.id is not null and t.id = s.id
  ),
  inserted as (
    insert into ${TABLE} (${COLUMNS.join(', ')})
    select ${COLUMNS.join(', ')} from ${staged} where id is null order by ord
    on conflict (mrn) do nothing returning id, mrn
  )
  select true as created, id, mrn from inserted
  union all
  select false, id, mrn from ${TABLE}
  where mrn = any (array(
    select s.mrn from ${staged} as s
    where s.id is null and not exists (select from inserted as i where i.mrn = s.mrn)
  ))`;

const api = (({ sdk }) => {
  /** The rules the patients routes apply, applied to rows that come in by the batch. */
  const refuse = (index: number, message: string) =>
    new sdk.errors.WardError(
      'invalid_patient',
      `patient ${index} of the batch is invalid: ${message}`,
      'check the row against the patients module’s rules (GET /api/v1/openapi.json has them)',
    );
  const check = (row: PatientFields, index: number) => {
    if (row.mrn === '' || [...row.mrn].length > PATIENT_LIMITS.mrn)
      throw refuse(index, `the MRN must be 1 to ${PATIENT_LIMITS.mrn} characters`);
    if (row.familyName.trim() === '' || row.givenName.trim() === '')
      throw refuse(index, 'the family and given names are required');
    const fault = textFault(sdk.text, row);
    if (fault !== null) throw refuse(index, `${fault.pointer} ${fault.message}`);
  };
  /**
   * A batch's audit row, in its transaction: one per batch, not per patient, so an import stays
   * fast; the ids it created and changed (no values: a batch's values are its source's).
   */
  const recordBatch = (
    bound: Acting,
    written: ReadonlyArray<{ status: 'created' | 'updated'; id: number }>,
  ) =>
    written.length === 0
      ? Promise.resolve()
      : sdk.audit.record(bound, {
          action: 'record.batch',
          kind: 'patient',
          patientIds: written.map((row) => row.id),
          detail: {
            created: written.filter((row) => row.status === 'created').map((row) => row.id),
            updated: written.filter((row) => row.status === 'updated').map((row) => row.id),
          },
        });

  return {
    limits: PATIENT_LIMITS,

    /** The patient with this id, or null. */
    get(acting: Acting, id: number): Promise<Patient | null> {
      return findPatient(acting.knex, id);
    },

    /** The patients among these ids that exist, in no particular order. */
    getMany(acting: Acting, ids: readonly number[]): Promise<Patient[]> {
      return findPatients(acting.knex, ids);
    },

    /** Which patient holds each of these MRNs (exactly as given), for those held. */
    mrnOwners(acting: Acting, mrns: readonly string[]): Promise<Map<string, number>> {
      return mrnOwners(acting.knex, mrns);
    },

    /**
     * Creates and changes many patients in the caller's transaction: the batch goes to the server
     * through one COPY, then one statement inserts, updates and finds the owners of taken MRNs,
     * whatever their number. A new patient whose MRN is taken (by a patient already there or an
     * earlier row of the batch) is not created: it comes back `mrn_taken` with the owner. A row
     * breaking the module's rules throws WardError `invalid_patient`, and nothing is written.
     */
    async upsertMany(acting: Acting, rows: readonly PatientUpsert[]): Promise<UpsertOutcome[]> {
      rows.forEach(check);
      if (rows.length === 0) return [];
      return acting.transaction(async (trx, bound) => {
        const staged = await sdk.batch.stage(
          trx,
          SPEC,
          rows.map((row) => ({ id: row.id, columns: row })),
        );
        const written = (await trx.raw(writeStaged(staged))) as {
          rows: Array<{ created: boolean; id: number; mrn: string }>;
        };
        const inserted = new Map<string, number>();
        const owners = new Map<string, number>();
        for (const row of written.rows) (row.created ? inserted : owners).set(row.mrn, row.id);
        const claimed = new Set<number>();
        type Written = Extract<UpsertOutcome, { id: number }>;
        const outcomes: Array<Written | null> = rows.map((row) => {
          if (row.id !== undefined) return { status: 'updated', id: row.id };
          const id = inserted.get(row.mrn);
          // Two rows of one batch with one MRN: the first is created, the second finds it taken.
          if (id === undefined || claimed.has(id)) return null;
          claimed.add(id);
          return { status: 'created', id };
        });
        await recordBatch(
          bound,
          outcomes.filter((outcome) => outcome !== null),
        );
        return outcomes.map(
          (outcome, index): UpsertOutcome =>
            outcome ?? { status: 'mrn_taken', owner: owners.get(rows[index]!.mrn) },
        );
      });
    },
  };
}) satisfies ModuleApiFactory<object>;

export type PatientsApi = ReturnType<typeof api>;
export default api;
