import type { Knex } from 'knex';

/**
 * Text in NFC, as the API now stores it: rows written before may hold "José" with a combining
 * accent, which a search typed precomposed never finds, and which sits beside a precomposed "José"
 * MRN as a second patient. Two rows whose MRNs become one are not merged (only a person may decide
 * that): the migration fails naming both, and nothing changes until one is renumbered. NFC can
 * also lengthen text (U+0958 becomes two code points), so a value that would no longer fit its
 * column stops it the same way, naming the row, before any row is changed.
 *
 * PostgreSQL normalises only in a UTF8 database (13 and later); in any other encoding the API's
 * text could not have been stored decomposed beyond what the encoding holds, so there is nothing
 * to do. The address is normalised as JSON text: NFC composes no JSON punctuation with what
 * follows it, so the document keeps its shape.
 */
const TEXT_COLUMNS = ['mrn', 'family_name', 'given_name', 'phone', 'email'] as const;

export async function up(knex: Knex): Promise<void> {
  const { rows } = (await knex.raw(
    `select current_setting('server_encoding') as encoding,
            current_setting('server_version_num')::int as version`,
  )) as { rows: Array<{ encoding: string; version: number }> };
  const { encoding, version } = rows[0]!;
  if (encoding !== 'UTF8') return;
  if (version < 130000)
    throw new Error(
      `patients: normalising stored text to Unicode NFC needs PostgreSQL 13 or later, and this server is ${version}; upgrade PostgreSQL, then restart Ward`,
    );
  const collisions = (
    (await knex.raw(
      `select normalize(mrn, NFC) as mrn, array_agg(id order by id) as ids
         from patients_patient
        group by normalize(mrn, NFC)
       having count(*) > 1
        order by min(id)`,
    )) as { rows: Array<{ mrn: string; ids: number[] }> }
  ).rows;
  if (collisions.length > 0)
    throw new Error(
      `patients: ${collisions
        .map(
          ({ mrn, ids }) =>
            `patients ${ids.join(' and ')} have the MRN ${JSON.stringify(mrn)} once normalised to Unicode NFC`,
        )
        .join(
          '; ',
        )}; give all but one of them another MRN (or merge them), then restart Ward; nothing was changed`,
    );
  const tooLong = await overlong(knex);
  if (tooLong.length > 0)
    throw new Error(
      `patients: ${tooLong
        .map(
          ({ column, limit, ids }) =>
            `${ids.length === 1 ? 'patient' : 'patients'} ${ids.join(', ')} ${ids.length === 1 ? 'has a' : 'have'} ${column} longer than its ${limit} characters once normalised to Unicode NFC`,
        )
        .join('; ')}; shorten those values, then restart Ward; nothing was changed`,
    );
  const normalised = TEXT_COLUMNS.map((column) => `${column} = normalize(${column}, NFC)`);
  const pending = TEXT_COLUMNS.map((column) => `${column} is not nfc normalized`);
  await knex.raw(
    `update patients_patient
        set ${normalised.join(', ')},
            address = normalize(address::text, NFC)::jsonb
      where ${pending.join(' or ')} or address::text is not nfc normalized`,
  );
}

/** The text columns with a length limit, each with the rows whose NFC form would exceed it. */
async function overlong(knex: Knex): Promise<Array<{ column: string; limit: number; ids: number[] }>> {
  const limits = (
    (await knex.raw(
      `select column_name as column, character_maximum_length as limit
         from information_schema.columns
        where table_schema = current_schema() and table_name = 'patients_patient'
          and character_maximum_length is not null and column_name = any(?)
        order by ordinal_position`,
      [[...TEXT_COLUMNS]],
    )) as { rows: Array<{ column: string; limit: number }> }
  ).rows;
  const found = [];
  for (const { column, limit } of limits) {
    const ids = (await knex('patients_patient')
      .whereRaw('char_length(normalize(??, NFC)) > ?', [column, limit])
      .orderBy('id')
      .pluck('id')) as number[];
    if (ids.length > 0) found.push({ column, limit, ids });
  }
  return found;
}

/** NFC is the same text: there is nothing to undo. */
export async function down(): Promise<void> {}
