/**
 * Reads and writes of `patients_patient`, the module's one write path: every write stores the
 * folded columns (lib/fold.ts) beside the fields it changes. Lists are ordered by the folded
 * family name, given name and id in the "C" collation: the columns of `patients_patient_sort_idx`
 * (migration 20261128000000), so each page is an index range scan.
 */
import type { Knex } from 'knex';
import type { Acting, KeyKind, Page, PageRequest, WardSdk } from '../../../src/sdk/index.ts';
import { foldedColumns, nameKey } from './fold.ts';
import { formatMrn, type MrnFormat } from './mrn.ts';
import { COLUMNS, presentPatient, type Patient, type PatientInput, type PatientRow } from './patient.ts';
import { SHORT_WORD, type SearchTerm } from './search.ts';

export const TABLE = 'patients_patient';
const MRN_UNIQUE = 'patients_patient_mrn_unique';
const KEY = 'family_fold, given_fold, id';

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

/** The listed columns in SQL, for the searches written as SQL. */
const LISTED = `id, mrn, family_name, given_name, birth_date::text as birth_date, sex, phone, email,
  address, created_at, updated_at, family_fold as sort_family, given_fold as sort_given`;

/** The same columns as the rows of a CTE that selected LISTED. */
const REST_LISTED = `id, mrn, family_name, given_name, birth_date, sex, phone, email, address, created_at,
  updated_at, sort_family, sort_given`;

/** The LIKE pattern of a search word. Folded text holds no LIKE wildcard. */
const pattern = (text: string) => (text.length < SHORT_WORD ? `% ${text}%` : `%${text}%`);

/** The SQL condition and bindings of one search term. */
function termCondition(term: SearchTerm): [sql: string, bindings: Knex.RawBinding[]] {
  if (term.kind === 'date') return ['birth_date = any(?::date[])', [term.dates]];
  return ['search_text like ?', [pattern(term.text)]];
}

/** After the cursor's row in name order, on the sort index's columns. */
const AFTER = `(${KEY}) > (?, ?, ?)`;

/**
 * One word, the search typed most: the patients it finds, in name order, from three parts that
 * each read little more than the page. Those whose family name begins with the word are one range
 * of the sort index; those whose given name does, for each such given name (found by skipping
 * along the given index), a range of the given index in name order; those matched anywhere else
 * (a later letter, a later word of a name, the MRN, the phone) the trigram index on `search_rest`
 * finds, and only they are read and sorted (checked against the search text outside the CTE,
 * so that the planner does not intersect both trigram indexes). Each part stops after the page.
 */
function oneWordSearch(knex: Knex, text: string, page: PageRequest, after: readonly Knex.Value[] | null) {
  const prefix = `${text}%`;
  const take = page.offset + page.limit + 1;
  const cursor = after === null ? '' : `and ${AFTER}`;
  const cursorBindings = after ?? [];
  // Within one given name, the cursor's family name bounds the range; the row comparison decides.
  const givenCursor = after === null ? '' : `and family_fold >= ? and ${AFTER}`;
  const givenBindings = after === null ? [] : [after[0]!, ...after];
  return knex.raw(
    `with recursive givens(name) as (
       (select given_fold from ${TABLE} where given_fold like ? order by given_fold limit 1)
       union all
       select (select given_fold from ${TABLE}
                where given_fold > givens.name and given_fold like ? order by given_fold limit 1)
         from givens where givens.name is not null
     ),
     rest as materialized (
       select ${LISTED}, search_text from ${TABLE} where search_rest like ? ${cursor}
     ),
     found as (
       (select ${LISTED} from ${TABLE} where family_fold like ? ${cursor} order by ${KEY} limit ?)
       union
       (select by_given.* from givens cross join lateral
          (select ${LISTED} from ${TABLE} where given_fold = givens.name ${givenCursor}
            order by family_fold, id limit ?) as by_given
         where givens.name is not null)
       union
       (select ${REST_LISTED} from rest where search_text like ?
         order by sort_family, sort_given, id limit ?)
     )
     select * from found order by sort_family, sort_given, id limit ? offset ?`,
    [
      prefix,
      prefix,
      pattern(text),
      ...cursorBindings,
      prefix,
      ...cursorBindings,
      take,
      ...givenBindings,
      take,
      pattern(text),
      take,
      page.limit + 1,
      page.offset,
    ],
  );
}

/**
 * Every term of `search` (lib/search.ts) must match: a date the birth date, folded text a part of
 * the patient's search text (the folded names, MRN and phone digits), or, shorter than three
 * letters, the start of one of its words; the list keeps its name order and cursor.
 *
 * How it is found matters at a million patients. One letter alone lists the family names that
 * begin with it, a range of the sort index. One word is found by `oneWordSearch`. Several words,
 * or a birth date, narrow the matches to a few: their rows are read from the trigram (or birth
 * date) index, then sorted; a materialized CTE keeps the planner from walking the sort index
 * instead, which it prefers when it overestimates the matches, and which reads half the table for
 * a name in the middle of the alphabet.
 */
export async function listPatients(
  sdk: WardSdk,
  knex: Knex,
  search: readonly SearchTerm[],
  page: PageRequest,
): Promise<Page<Patient>> {
  const listed = [...columns(knex), 'family_fold as sort_family', 'given_fold as sort_given'];
  const [only] = search;
  let rows: ListedRow[];
  if (search.length === 1 && only?.kind === 'text' && only.text.length > 1)
    rows = ((await oneWordSearch(knex, only.text, page, page.after)) as { rows: ListedRow[] }).rows;
  else {
    let query: Knex.QueryBuilder;
    let key = KEY;
    if (search.length === 0) query = knex(TABLE).select(listed);
    else if (search.length === 1 && only?.kind === 'text')
      query = knex(TABLE).select(listed).where('family_fold', 'like', `${only.text}%`);
    else {
      // A birth date narrows to a few dozen patients in a million: the CTE reads them by date
      // alone, and the words filter those, rather than the planner intersecting the trigram index.
      const dated = search.some((term) => term.kind === 'date');
      const found = knex(TABLE).select([...listed, 'search_text']);
      for (const term of search) if (!dated || term.kind === 'date') found.whereRaw(...termCondition(term));
      query = knex.withMaterialized('found', found).select(['*']).from('found');
      if (dated) for (const term of search) if (term.kind === 'text') query.whereRaw(...termCondition(term));
      key = 'sort_family, sort_given, id';
    }
    if (page.after !== null) query.whereRaw(`(${key}) > (?, ?, ?)`, page.after);
    rows = (await query
      .orderByRaw(key)
      .limit(page.limit + 1)
      .offset(page.offset)) as ListedRow[];
  }
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

const isDuplicateMrn = (sdk: WardSdk, error: unknown) => {
  const failed = sdk.db.constraintError(error);
  return failed?.code === sdk.db.UNIQUE_VIOLATION && failed.constraint === MRN_UNIQUE;
};

/** Runs a write, turning a duplicate MRN into 409. */
async function writing<T>(sdk: WardSdk, mrn: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateMrn(sdk, error)) throw duplicateMrn(sdk, mrn, error);
    throw error;
  }
}

/** Patients of the same folded name and birth date: probably the person being registered again. */
export async function probableDuplicates(
  knex: Knex,
  familyName: string,
  givenName: string,
  birthDate: string,
): Promise<Patient[]> {
  const rows = (await knex(TABLE)
    .select(columns(knex))
    .where({ name_key: nameKey(familyName, givenName), birth_date: birthDate })
    .orderBy('id')) as PatientRow[];
  return rows.map(presentPatient);
}

/** A fresh MRN takes this many sequence numbers at most before it gives up (typed MRNs took them). */
const MRN_ATTEMPTS = 100;

const mrnsExhausted = (sdk: WardSdk, format: MrnFormat) =>
  new sdk.errors.ApiError(
    409,
    'mrn_unavailable',
    `the next ${MRN_ATTEMPTS} MRNs of the format ${JSON.stringify(formatMrn(format, '{seq}'))} already belong to patients`,
    "type an MRN for this patient; an administrator can move the sequence past the MRNs typed by hand (select setval('patients_mrn_seq', <highest number>)) or set WARD_MRN_FORMAT to a format those MRNs do not use",
  );

/** Inserts one patient with its folded columns, in the acting context's transaction. */
const insertPatient = (sdk: WardSdk, acting: Acting, input: PatientInput, mrn: string): Promise<Patient> =>
  acting.transaction(async (trx, bound) => {
    const values = {
      ...toColumns({ ...input, mrn }),
      ...foldedColumns({
        mrn,
        familyName: input.familyName!,
        givenName: input.givenName!,
        phone: input.phone ?? null,
      }),
    };
    const [row] = (await trx(TABLE).insert(values).returning('id')) as Array<{ id: number }>;
    const patient = (await findPatient(trx, row!.id)) as Patient;
    await sdk.audit.record(bound, {
      action: 'record.create',
      kind: 'patient',
      recordId: patient.id,
      patientId: patient.id,
      detail: { changes: sdk.audit.changes(null, patient) },
    });
    return patient;
  });

/**
 * Creates a patient. Without an MRN, Ward assigns the next one of `format`: numbers come from the
 * sequence, which no two backends share a value of, and one a typed MRN already took is skipped.
 */
export async function createPatient(
  sdk: WardSdk,
  acting: Acting,
  input: PatientInput,
  format: MrnFormat,
): Promise<Patient> {
  if (input.mrn !== undefined) {
    const mrn = input.mrn;
    return writing(sdk, mrn, () => insertPatient(sdk, acting, input, mrn));
  }
  for (let attempt = 0; attempt < MRN_ATTEMPTS; attempt += 1) {
    const { rows } = (await acting.knex.raw(`select nextval('patients_mrn_seq')::text as seq`)) as {
      rows: Array<{ seq: string }>;
    };
    try {
      return await insertPatient(sdk, acting, input, formatMrn(format, rows[0]!.seq));
    } catch (error) {
      if (!isDuplicateMrn(sdk, error)) throw error;
    }
  }
  throw mrnsExhausted(sdk, format);
}

/** Null when there is no such patient. The folded columns follow the merged row. */
export function updatePatient(
  sdk: WardSdk,
  acting: Acting,
  id: number,
  input: PatientInput,
): Promise<Patient | null> {
  return writing(sdk, input.mrn, () =>
    acting.transaction(async (trx, bound) => {
      const row = (await trx(TABLE)
        .where({ id })
        .forUpdate()
        .first('mrn', 'family_name', 'given_name', 'phone')) as
        Pick<PatientRow, 'mrn' | 'family_name' | 'given_name' | 'phone'> | undefined;
      if (row === undefined) return null;
      // Read under the lock, so the before the trail records is the row this update changes.
      const before = await findPatient(trx, id);
      const folded = foldedColumns({
        mrn: input.mrn ?? row.mrn,
        familyName: input.familyName ?? row.family_name,
        givenName: input.givenName ?? row.given_name,
        phone: input.phone === undefined ? row.phone : input.phone,
      });
      await trx(TABLE)
        .where({ id })
        .update({ ...toColumns(input), ...folded, updated_at: trx.fn.now() });
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
