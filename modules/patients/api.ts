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
     * Creates and changes many patients in the caller's transaction: one INSERT and one UPDATE
     * whatever their number. A new patient whose MRN is taken (by a patient already there or an
     * earlier row of the batch) is not created: it comes back `mrn_taken` with the owner. A row
     * breaking the module's rules throws WardError `invalid_patient`, and nothing is written.
     */
    async upsertMany(acting: Acting, rows: readonly PatientUpsert[]): Promise<UpsertOutcome[]> {
      rows.forEach(check);
      return acting.transaction(async (trx, bound) => {
        const creates = rows.filter((row) => row.id === undefined);
        const inserted = await sdk.batch.insertUnique(trx, SPEC, creates, 'mrn');
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
        const taken = rows.filter((_, index) => outcomes[index] === null).map((row) => row.mrn);
        const owners = taken.length === 0 ? new Map<string, number>() : await mrnOwners(trx, taken);
        await sdk.batch.updateRows(
          trx,
          SPEC,
          rows.flatMap((row) => (row.id === undefined ? [] : [{ id: row.id, columns: row }])),
        );
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
