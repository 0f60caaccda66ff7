import type { Knex } from 'knex';
import { foldedColumns } from '../lib/fold.ts';

/**
 * The folded family and given names as columns in the "C" collation, and the rest of the search
 * text (lib/fold.ts `searchRest`), so that a broad search reads one page, not every match. The
 * list is ordered by the folded names (Müller among the M's, O'Brien among the O's) on
 * `patients_patient_sort_idx`, where the patients whose family name begins with a word are one
 * range already in order; `patients_patient_given_idx` gives those of each given name in the same
 * order; the trigram index on the rest finds the few matched anywhere else. The old name index on
 * the lower-cased names served the order these replace. The module's write path keeps the
 * columns; this migration fills them for the rows already stored, in batches, with the same fold.
 */
const BATCH = 5000;

const folded = (column: string) => `(lower(${column} collate "und-x-icu") collate "C")`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table patients_patient
       add column family_fold text collate "C",
       add column given_fold text collate "C",
       add column search_rest text`,
  );
  await backfill(knex);
  for (const column of ['family_fold', 'given_fold', 'search_rest'])
    await knex.raw(
      `alter table patients_patient alter column ?? set default '', alter column ?? set not null`,
      [column, column],
    );
  await knex.raw('create index patients_patient_sort_idx on patients_patient (family_fold, given_fold, id)');
  await knex.raw('create index patients_patient_given_idx on patients_patient (given_fold, family_fold, id)');
  await knex.raw(
    'create index patients_patient_rest_idx on patients_patient using gin (search_rest gin_trgm_ops)',
  );
  await knex.raw('drop index patients_patient_name_idx');
}

async function backfill(knex: Knex): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = (await knex('patients_patient')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'mrn', 'family_name', 'given_name', 'phone')) as Array<{
      id: number;
      mrn: string;
      family_name: string;
      given_name: string;
      phone: string | null;
    }>;
    if (rows.length === 0) return;
    const foldedRows = rows.map((row) =>
      foldedColumns({
        mrn: row.mrn,
        familyName: row.family_name,
        givenName: row.given_name,
        phone: row.phone,
      }),
    );
    await knex.raw(
      `update patients_patient as patient
          set family_fold = folded.family_fold, given_fold = folded.given_fold,
              search_rest = folded.search_rest
         from unnest(?::int[], ?::text[], ?::text[], ?::text[])
              as folded(id, family_fold, given_fold, search_rest)
        where patient.id = folded.id`,
      [
        rows.map((row) => row.id),
        foldedRows.map((row) => row.family_fold),
        foldedRows.map((row) => row.given_fold),
        foldedRows.map((row) => row.search_rest),
      ],
    );
    after = rows.at(-1)!.id;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `create index patients_patient_name_idx on patients_patient
       (${folded('family_name')}, ${folded('given_name')}, id)`,
  );
  await knex.raw('drop index patients_patient_rest_idx');
  await knex.raw('drop index patients_patient_given_idx');
  await knex.raw('drop index patients_patient_sort_idx');
  await knex.schema.alterTable('patients_patient', (table) => {
    table.dropColumns('family_fold', 'given_fold', 'search_rest');
  });
}
