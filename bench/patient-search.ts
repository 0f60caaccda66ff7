/**
 * Patient search on 1,000,000 patients: `GET /api/v1/patients/patients?q=` on `ward backend`, with
 * the queries a receptionist types (folded names as they grow letter by letter, two words, MRNs,
 * birth dates in ISO and dotted form, phone numbers), against a read of one patient by id on the
 * same backend, the same stack's cheapest authenticated request, measured in the same rounds. One
 * connection, one request at a time; prints the p95 of each and their ratio (target p95 <= 50 ms).
 * The patients are written by one INSERT … SELECT over generate_series, their folded columns from
 * name lists folded in JavaScript by the module's own fold, with the indexes built afterwards as a
 * migration would.
 *
 *   node bench/patient-search.ts [--patients 1000000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fold, foldedColumns } from '../modules/patients/lib/fold.ts';
import { WARD } from '../test/helpers/cli.ts';
import { ratio, scratchDatabase, startServer, ward } from './lib.ts';

const { values: options } = parseArgs({ options: { patients: { type: 'string', default: '1000000' } } });
const PATIENTS = Number(options.patients);
const ROUNDS = 15;
const TARGET_MS = 50;

// Common surnames beside ones a fold must handle: accents, ß, ø, ł, apostrophes, hyphens.
const FAMILY = [
  ...'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez'.split(
    ' ',
  ),
  ...[
    'Müller',
    'Schröder',
    'Weiß',
    'Straße',
    "O'Brien",
    "O'Connor",
    "D'Angelo",
    'Søndergaard',
    'Łukasiewicz',
    'Ñúñez',
    'Nguyễn',
    'Smith-Jones',
    'García-Márquez',
    'Åberg',
    'Öztürk',
    'Dvořák',
    'Kowalczyk',
    'Ærøe',
    'van der Berg',
    'Björk',
  ],
];
const GIVEN = [
  ...'James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Dorothy George Melissa Timothy Deborah Ronald Stephanie Edward Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy Nicholas Angela Eric Shirley Jonathan Anna'.split(
    ' ',
  ),
  ...['Jürgen', 'Zoë', 'Siobhán', 'José', 'Søren', 'Łucja', 'François', 'Mary Ann', 'Jean-Luc', 'Åsa'],
];

const QUERIES = [
  'm',
  'mu',
  'mul',
  'mull',
  'muller',
  'muller jurgen',
  'obrien',
  "o'connor",
  'smith',
  'smith mary',
  'garcia marquez',
  'nunez jose',
  'lukasiewicz',
  'strasse',
  'jo',
  'MRN-0000042',
  'mrn0123456',
  '0654321',
  '1984-03-07',
  '7.3.1984',
  'smith 1984-03-07',
  '555 004 2042',
];

/** Name lists as SQL arrays: each name, its folded form, and its folded form without spaces. */
const lists = (names: string[]) => [
  names,
  names.map(fold),
  names.map((name) => fold(name).replaceAll(' ', '')),
];

const db = await scratchDatabase();
const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-patient-search-'));
try {
  const env = { PATH: process.env.PATH, DATABASE_URL: db.url, WARD_STORAGE_DIR: storage, LOG_LEVEL: 'warn' };
  ward(['db', 'migrate'], env);
  ward(['modules', 'install', 'patients'], env);
  await (await startServer(WARD, ['backend'], env, '/health')).stop();
  ward(['users', 'create', 'bench', '--role', 'admin'], env);
  const token = ward(['tokens', 'create', '--user', 'bench', '--name', 'bench'], env);

  const filling = performance.now();
  const indexes = (await db.knex.raw(
    `select indexname, indexdef from pg_indexes
      where tablename = 'patients_patient' and indexname not in ('patients_patient_pkey', 'patients_patient_mrn_unique')`,
  )) as { rows: Array<{ indexname: string; indexdef: string }> };
  for (const { indexname } of indexes.rows) await db.knex.raw(`drop index ${indexname}`);
  const phone = `lpad(((i * 104729) % 10000000)::text, 7, '0')`;
  await db.knex.raw(
    `insert into patients_patient (mrn, family_name, given_name, birth_date, sex, phone, search_text, name_key,
                                   family_fold, given_fold, search_rest)
     select 'MRN-' || lpad(i::text, 7, '0'), f.name, g.name,
            date '1930-01-01' + ((i * 7919) % 33000)::int,
            (array['female', 'male'])[1 + i % 2],
            '+1 555 ' || substr(${phone}, 1, 3) || ' ' || substr(${phone}, 4),
            ' ' || f.folded || ' ' || g.folded || ' mrn' || lpad(i::text, 7, '0') || ' 1555' || ${phone},
            f.key || '|' || g.key,
            f.folded, g.folded,
            '0' || substr(f.folded, 2) || ' 0' || substr(g.folded, 2) || ' mrn' || lpad(i::text, 7, '0') || ' 1555' || ${phone}
       from generate_series(1::bigint, ?::bigint) as i
       join unnest(?::text[], ?::text[], ?::text[]) with ordinality as f(name, folded, key, n)
         on f.n = 1 + (i * 31) % ?::int
       join unnest(?::text[], ?::text[], ?::text[]) with ordinality as g(name, folded, key, n)
         on g.n = 1 + (i * 17 + i / 997) % ?::int`,
    [PATIENTS, ...lists(FAMILY), FAMILY.length, ...lists(GIVEN), GIVEN.length],
  );
  for (const { indexdef } of indexes.rows) await db.knex.raw(indexdef);
  await db.knex.raw('analyze patients_patient');
  const sample = await db.knex('patients_patient').where({ id: 42 }).first();
  const folded = foldedColumns({
    mrn: sample.mrn,
    familyName: sample.family_name,
    givenName: sample.given_name,
    phone: sample.phone,
  });
  for (const [column, value] of Object.entries(folded))
    if (sample[column] !== value)
      throw new Error(`the SQL fill folds ${column} unlike the module: ${sample[column]} ≠ ${value}`);
  console.log(
    `${PATIENTS} patients written and indexed in ${((performance.now() - filling) / 1000).toFixed(0)} s`,
  );

  const headers = { authorization: `Bearer ${token}` };
  const server = await startServer(WARD, ['backend'], env, '/health');
  const base = server.url.replace(/\/health$/, '');
  try {
    const time = async (url: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      return performance.now() - started;
    };
    const search = (q: string) =>
      time(`${base}/api/v1/patients/patients?limit=25&q=${encodeURIComponent(q)}`);
    const byId = (id: number) => time(`${base}/api/v1/patients/patients/${id}`);
    for (const q of QUERIES) await search(q);
    const searches: number[] = [];
    const perQuery = new Map<string, number[]>(QUERIES.map((q) => [q, []]));
    const baseline: number[] = [];
    for (let round = 0; round < ROUNDS; round++)
      for (const [index, q] of QUERIES.entries()) {
        const took = await search(q);
        searches.push(took);
        perQuery.get(q)!.push(took);
        baseline.push(await byId(1 + (((round * QUERIES.length + index) * 7919) % PATIENTS)));
      }
    const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;
    const slowest = [...perQuery].sort(([, a], [, b]) => p95(b) - p95(a)).slice(0, 3);
    console.log(
      `patient search on ${PATIENTS} patients: p95 ${p95(searches).toFixed(1)} ms, read by id p95 ${p95(baseline).toFixed(1)} ms -> ${ratio(p95(searches), p95(baseline))} (target p95 <= ${TARGET_MS} ms; ${QUERIES.length} queries x ${ROUNDS} rounds, one at a time)`,
    );
    console.log(
      `slowest: ${slowest.map(([q, times]) => `"${q}" p95 ${p95(times).toFixed(1)} ms`).join(', ')}`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await rm(storage, { recursive: true, force: true });
  await db.drop();
}
