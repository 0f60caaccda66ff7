import type { Knex } from 'knex';
import { foldedColumns } from '../lib/fold.ts';

/**
 * Search that ignores case, accents and punctuation, the probable-duplicate check, and MRNs Ward
 * assigns. `search_text` holds the folded names, MRN and phone digits (lib/fold.ts), after a
 * space so that every word, the first included, starts after one: a short word then matches
 * only word starts (`like '% jo%'`), which the trigram index narrows too. `name_key` is the
 * folded name a duplicate shares. The module's write path keeps both; this migration fills them
 * for the rows already stored, in batches, with the same JavaScript fold. pg_trgm ships with
 * PostgreSQL (the embedded server included) and is a trusted extension: the database's owner may
 * create it.
 */
const BATCH = 5000;

/** The expression of the indexes `down` puts back, as migration 20260301000000 made them. */
const folded = (column: string) => `(lower(${column} collate "und-x-icu") collate "C")`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.schema.alterTable('patients_patient', (table) => {
    table.text('search_text');
    table.text('name_key');
  });
  await backfill(knex);
  // The default lets a row written around the module (a fix in SQL) in; search finds it once the
  // API or an import writes it again.
  for (const column of ['search_text', 'name_key'])
    await knex.raw(
      `alter table patients_patient alter column ?? set default '', alter column ?? set not null`,
      [column, column],
    );
  await knex.raw(
    'create index patients_patient_search_idx on patients_patient using gin (search_text gin_trgm_ops)',
  );
  await knex.raw('create index patients_patient_duplicate_idx on patients_patient (name_key, birth_date)');
  await knex.raw('create index patients_patient_birth_date_idx on patients_patient (birth_date)');
  // The search index finds MRNs and given names now; these only slowed every write.
  await knex.raw('drop index patients_patient_given_name_idx');
  await knex.raw('drop index patients_patient_mrn_folded_idx');
  await knex.raw('create sequence patients_mrn_seq');
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
          set search_text = folded.search_text, name_key = folded.name_key
         from unnest(?::int[], ?::text[], ?::text[]) as folded(id, search_text, name_key)
        where patient.id = folded.id`,
      [
        rows.map((row) => row.id),
        foldedRows.map((row) => row.search_text),
        foldedRows.map((row) => row.name_key),
      ],
    );
    after = rows.at(-1)!.id;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop sequence patients_mrn_seq');
  await knex.raw(`create index patients_patient_mrn_folded_idx on patients_patient (${folded('mrn')})`);
  await knex.raw(
    `create index patients_patient_given_name_idx on patients_patient (${folded('given_name')})`,
  );
  await knex.raw('drop index patients_patient_birth_date_idx');
  await knex.raw('drop index patients_patient_duplicate_idx');
  await knex.raw('drop index patients_patient_search_idx');
  await knex.schema.alterTable('patients_patient', (table) => {
    table.dropColumns('search_text', 'name_key');
  });
}
