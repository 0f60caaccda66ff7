/**
 * Reads and writes of `patients_patient`. Lists are ordered by family name, given name and id,
 * lower-cased (ICU root locale) and compared in the "C" collation: the expressions of the indexes
 * (migration 20260301000000), so each page and each prefix search is an index range scan.
 */
import type { Knex } from 'knex';
import type { Acting, KeyKind, Page, PageRequest, WardSdk } from '../../../src/sdk/index.ts';
import { COLUMNS, presentPatient, type Patient, type PatientInput, type PatientRow } from './patient.ts';

export const TABLE = 'patients_patient';
const folded = (column: string) => `(lower(${column} collate "und-x-icu") collate "C")`;
const FAMILY = folded('family_name');
const GIVEN = folded('given_name');
const MRN = folded('mrn');
const MRN_UNIQUE = 'patients_patient_mrn_unique';

export const SORT_KEY: readonly KeyKind[] = ['text', 'text', 'integer'];

type ListedRow = PatientRow & { sort_family: string; sort_given: string };

const columns = (knex: Knex) => [
  'id',
  'mrn',
  'family_name',
  'given_name',
  // A date as text: node-postgres would make it a Date at local midnight, which shifts across zones.
  knex.raw('birth_date::text as birth_date'),
  'sex',
  'phone',
  'email',
  'address',
  'created_at',
  'updated_at',
];

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/**
 * Every word of `search` must begin the family name, the given name or the MRN, ignoring case. The
 * words are NFC (from `sdk.http.queryText`), as stored text is (the body reader and migration
 * 20261124000000 see to it).
 */
export async function listPatients(
  sdk: WardSdk,
  knex: Knex,
  search: string[],
  page: PageRequest,
): Promise<Page<Patient>> {
  const query = knex(TABLE).select(
    ...columns(knex),
    knex.raw(`${FAMILY} as sort_family`),
    knex.raw(`${GIVEN} as sort_given`),
  );
  for (const word of search) {
    const prefix = `${escapeLike(word)}%`;
    query.where((any) =>
      any
        .whereRaw(`${FAMILY} like ${folded('?')}`, [prefix])
        .orWhereRaw(`${GIVEN} like ${folded('?')}`, [prefix])
        .orWhereRaw(`${MRN} like ${folded('?')}`, [prefix]),
    );
  }
  if (page.after !== null) query.whereRaw(`(${FAMILY}, ${GIVEN}, id) > (?, ?, ?)`, page.after);
  const rows = (await query
    .orderByRaw(`${FAMILY}, ${GIVEN}, id`)
    .limit(page.limit + 1)
    .offset(page.offset)) as ListedRow[];
  return sdk.http.toPage(
    rows,
    page.limit,
    (row) => [row.sort_family, row.sort_given, row.id],
    presentPatient,
  );
}

export async function findPatient(knex: Knex, id: number): Promise<Patient | null> {
  const row = (await knex(TABLE).select(columns(knex)).where({ id }).first()) as PatientRow | undefined;
  return row === undefined ? null : presentPatient(row);
}

export async function findPatients(knex: Knex, ids: readonly number[]): Promise<Patient[]> {
  if (ids.length === 0) return [];
  const rows = (await knex(TABLE).select(columns(knex)).whereIn('id', ids)) as PatientRow[];
  return rows.map(presentPatient);
}

export async function mrnOwners(knex: Knex, mrns: readonly string[]): Promise<Map<string, number>> {
  if (mrns.length === 0) return new Map();
  const rows = (await knex(TABLE).whereIn('mrn', mrns).select('id', 'mrn')) as Array<{
    id: number;
    mrn: string;
  }>;
  return new Map(rows.map((row) => [row.mrn, row.id]));
}

function toColumns(input: PatientInput): Partial<Record<keyof PatientRow, unknown>> {
  const values: Partial<Record<keyof PatientRow, unknown>> = {};
  for (const [field, column] of Object.entries(COLUMNS) as Array<[keyof PatientInput, keyof PatientRow]>)
    if (input[field] !== undefined) values[column] = input[field];
  return values;
}

const duplicateMrn = (sdk: WardSdk, mrn: string | undefined, cause: unknown) =>
  new sdk.errors.ApiError(
    409,
    'conflict',
    `a patient with MRN ${JSON.stringify(mrn)} already exists`,
    'give this patient another MRN, or find the existing one with GET /api/v1/patients/patients?q=<mrn>',
    { cause },
  );

/** Runs a write, turning a duplicate MRN into 409. */
async function writing<T>(sdk: WardSdk, input: PatientInput, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const failed = sdk.db.constraintError(error);
    if (failed?.code === sdk.db.UNIQUE_VIOLATION && failed.constraint === MRN_UNIQUE)
      throw duplicateMrn(sdk, input.mrn, error);
    throw error;
  }
}

export function createPatient(sdk: WardSdk, acting: Acting, input: PatientInput): Promise<Patient> {
  return writing(sdk, input, () =>
    acting.transaction(async (trx, bound) => {
      const [row] = (await trx(TABLE).insert(toColumns(input)).returning('id')) as Array<{ id: number }>;
      const patient = (await findPatient(trx, row!.id)) as Patient;
      await sdk.audit.record(bound, {
        action: 'record.create',
        kind: 'patient',
        recordId: patient.id,
        patientId: patient.id,
        detail: { changes: sdk.audit.changes(null, patient) },
      });
      return patient;
    }),
  );
}

/** Null when there is no such patient. */
export function updatePatient(
  sdk: WardSdk,
  acting: Acting,
  id: number,
  input: PatientInput,
): Promise<Patient | null> {
  return writing(sdk, input, () =>
    acting.transaction(async (trx, bound) => {
      // Locked first, so the before the trail records is the row this update changes.
      await trx(TABLE).where({ id }).forUpdate().select('id');
      const before = await findPatient(trx, id);
      const changed = await trx(TABLE)
        .where({ id })
        .update({ ...toColumns(input), updated_at: trx.fn.now() })
        .returning('id');
      if (changed.length === 0) return null;
      const after = (await findPatient(trx, id))!;
      await sdk.audit.record(bound, {
        action: 'record.update',
        kind: 'patient',
        recordId: id,
        patientId: id,
        detail: { changes: sdk.audit.changes(before, after) },
      });
      return after;
    }),
  );
}
