/**
 * Writes the deterministic fixtures of `migration_import` into test/fixtures/import/ (no downloads:
 * a seeded PRNG invents Synthea-shaped people). The same clinic appears as Synthea CSV, as a FHIR
 * Bundle and as FHIR NDJSON, so tests can check that every format yields the same records; bad/
 * holds one fault per file. The broken Bundle ends in `.json.txt` because `prettier --check .`
 * would refuse an invalid `.json`.
 * Run after changing it:  node scripts/generate-import-fixtures.ts
 * test/modules/migration_import/fixtures.test.ts fails while the files are stale.
 * `syntheaPatientsCsv`, `fhirPatientsBundle` and `fhirPatientsNdjson` stream any number of rows, for
 * benchmarks and memory tests.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { formatCsvRow } from '../modules/migration_import/lib/csv.ts';

export const fixturesDir = fileURLToPath(new URL('../test/fixtures/import/', import.meta.url));
const FIXTURE_SEED = 20260101;
const PATIENTS = 50;

type Random = () => number;

/** mulberry32: tiny, fast, and the same sequence on every machine (bench/planner.ts uses it too). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (random: Random, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, 0, items.length - 1)]!;
const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

function uuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => int(random, 0, 15).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[int(random, 0, 3)]!;
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

const FEMALE = ['Ann', 'Maria', 'Olivia', 'Zoë', 'Sofia', 'Amara', 'Hana', 'Ingrid', 'Priya', 'Chloé'];
const MALE = ['José', 'Liam', 'Noah', 'Kwame', 'Mateo', 'Jörg', 'Wei', 'Omar', 'Lucas', 'Ethan'];
const FAMILY = [
  'Smith',
  'Johnson',
  "O'Brien",
  'Müller',
  'García',
  'Nguyễn',
  'Kowalski',
  'Okafor',
  'Rossi',
  'Haddad',
];
const STREETS = ['Elm St', 'Main St', 'Harbor Way', 'Maple Ave', 'Beacon St', 'Cedar Ln'];
const CITIES = ['Boston', 'Worcester', 'Springfield', 'Cambridge', 'Lowell'];
const REASONS = ['Acute bronchitis (disorder)', 'Hypertension', 'Viral sinusitis (disorder)', 'Prediabetes'];
const VISITS = ['Encounter for check up (procedure)', 'General examination of patient (procedure)'];

interface Person {
  id: string;
  birthDate: string;
  gender: 'M' | 'F';
  prefix: string;
  first: string;
  last: string;
  address: string;
  city: string;
  zip: string;
  ssn: string;
  lat: string;
  lon: string;
  expenses: string;
  coverage: string;
  income: string;
}

function person(random: Random): Person {
  const gender = random() < 0.5 ? 'F' : 'M';
  const year = int(random, 1930, 2020);
  const unit = random() < 0.2 ? `, Unit ${int(random, 1, 40)}` : '';
  return {
    id: uuid(random),
    birthDate: `${year}-${pad(int(random, 1, 12))}-${pad(int(random, 1, 28))}`,
    gender,
    prefix: year > 2005 ? '' : gender === 'F' ? 'Ms.' : 'Mr.',
    first: pick(random, gender === 'F' ? FEMALE : MALE),
    last: pick(random, FAMILY),
    address: `${int(random, 1, 999)} ${pick(random, STREETS)}${unit}`,
    city: pick(random, CITIES),
    zip: random() < 0.8 ? `0${int(random, 1000, 2799)}` : '',
    ssn: `999-${pad(int(random, 10, 99))}-${pad(int(random, 1000, 9999), 4)}`,
    lat: (42 + random()).toFixed(6),
    lon: (-72 + random()).toFixed(6),
    expenses: (random() * 900000).toFixed(2),
    coverage: (random() * 90000).toFixed(2),
    income: String(int(random, 15000, 200000)),
  };
}

function* people(count: number, seed: number): Generator<Person> {
  const random = seededRandom(seed);
  for (let index = 0; index < count; index++) yield person(random);
}

const CLASSIC_COLUMNS = [
  'Id', 'BIRTHDATE', 'DEATHDATE', 'SSN', 'DRIVERS', 'PASSPORT', 'PREFIX', 'FIRST', 'LAST', 'SUFFIX', 'MAIDEN',
  'MARITAL', 'RACE', 'ETHNICITY', 'GENDER', 'BIRTHPLACE', 'ADDRESS', 'CITY', 'STATE', 'COUNTY', 'ZIP', 'LAT', 'LON',
  'HEALTHCARE_EXPENSES', 'HEALTHCARE_COVERAGE',
]; // prettier-ignore
/** Newer Synthea: FIPS before ZIP and INCOME at the end, so a positional reader would misread ZIP. */
const NEWER_COLUMNS = [...CLASSIC_COLUMNS.slice(0, 20), 'FIPS', ...CLASSIC_COLUMNS.slice(20), 'INCOME'];

function patientCells(who: Person): Record<string, string> {
  return {
    Id: who.id,
    BIRTHDATE: who.birthDate,
    SSN: who.ssn,
    DRIVERS: `S999${who.ssn.slice(-4)}`,
    PASSPORT: `X${who.ssn.slice(-4)}X`,
    PREFIX: who.prefix,
    FIRST: who.first,
    LAST: who.last,
    MARITAL: who.prefix === '' ? '' : 'M',
    RACE: 'white',
    ETHNICITY: 'nonhispanic',
    GENDER: who.gender,
    BIRTHPLACE: 'Boston  Massachusetts  US',
    ADDRESS: who.address,
    CITY: who.city,
    STATE: 'Massachusetts',
    COUNTY: 'Suffolk County',
    FIPS: '25025',
    ZIP: who.zip,
    LAT: who.lat,
    LON: who.lon,
    HEALTHCARE_EXPENSES: who.expenses,
    HEALTHCARE_COVERAGE: who.coverage,
    INCOME: who.income,
  };
}

const csvLine = (columns: readonly string[], cells: Record<string, string>): string =>
  `${formatCsvRow(columns.map((column) => cells[column] ?? ''))}\n`;

/** `patients.csv` of `rows` invented people, streamed 1,000 rows a chunk, never held whole. */
export async function* syntheaPatientsCsv(
  rows: number,
  seed: number,
  columns = CLASSIC_COLUMNS,
): AsyncIterable<string> {
  let chunk = formatCsvRow(columns) + '\n';
  let count = 0;
  for (const who of people(rows, seed)) {
    chunk += csvLine(columns, patientCells(who));
    if (++count % 1000 === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

interface Encounter {
  id: string;
  start: Date;
  stop: Date;
  patient: string;
  provider: string;
  description: string;
  reason: string;
}

function encounters(random: Random, who: Person, providers: readonly string[]): Encounter[] {
  return Array.from({ length: int(random, 0, 4) }, () => {
    const start = new Date(Date.UTC(int(random, 2015, 2024), int(random, 0, 11), int(random, 1, 28), int(random, 7, 17), int(random, 0, 59), int(random, 0, 59)));
    return {
      id: uuid(random),
      start,
      stop: new Date(start.getTime() + int(random, 15, 60) * 60_000),
      patient: who.id,
      provider: pick(random, providers),
      description: pick(random, VISITS),
      reason: random() < 0.5 ? pick(random, REASONS) : '',
    };
  }); // prettier-ignore
}

const ENCOUNTER_COLUMNS = [
  'Id', 'START', 'STOP', 'PATIENT', 'ORGANIZATION', 'PROVIDER', 'PAYER', 'ENCOUNTERCLASS', 'CODE', 'DESCRIPTION',
  'BASE_ENCOUNTER_COST', 'TOTAL_CLAIM_COST', 'PAYER_COVERAGE', 'REASONCODE', 'REASONDESCRIPTION',
]; // prettier-ignore

/** Synthea writes seconds and `Z`. */
const syntheaInstant = (date: Date): string => date.toISOString().replace('.000Z', 'Z');

/** The same instant written as a clinic in UTC-05:00 would, so readers must normalise zones. */
function offsetInstant(date: Date): string {
  const local = new Date(date.getTime() - 5 * 3_600_000).toISOString();
  return `${local.slice(0, 19)}-05:00`;
}

function encounterCells(encounter: Encounter): Record<string, string> {
  return {
    Id: encounter.id,
    START: syntheaInstant(encounter.start),
    STOP: syntheaInstant(encounter.stop),
    PATIENT: encounter.patient,
    ORGANIZATION: 'ef58ea08-d883-3957-8300-150554edc8fb',
    PROVIDER: encounter.provider,
    PAYER: 'b1c428d6-4f07-31e0-90f0-68ffa6ff8c76',
    ENCOUNTERCLASS: 'wellness',
    CODE: '185349003',
    DESCRIPTION: encounter.description,
    BASE_ENCOUNTER_COST: '136.80',
    TOTAL_CLAIM_COST: '136.80',
    PAYER_COVERAGE: '0.00',
    REASONCODE: encounter.reason === '' ? '' : '10509002',
    REASONDESCRIPTION: encounter.reason,
  };
}

interface Note {
  id: string;
  patient: string;
  file: string;
  title: string;
  text: string;
  /** Synthea's own bundles refer by `urn:uuid:`; other exporters by `Patient/<id>`. */
  urnReference: boolean;
}

interface Clinic {
  patients: Person[];
  encounters: Encounter[];
  providers: string[];
  notes: Note[];
}

function clinic(seed: number): Clinic {
  const random = seededRandom(seed + 1);
  const patients = [...people(PATIENTS, seed)];
  const providers = Array.from({ length: 5 }, () => uuid(random));
  const visits = patients.flatMap((who) => encounters(random, who, providers));
  const notes = visits
    .filter((_, index) => index % 6 === 0)
    .map((visit, index): Note => {
      const who = patients.find((candidate) => candidate.id === visit.patient)!;
      const day = syntheaInstant(visit.start).slice(0, 10);
      return {
        id: uuid(random),
        patient: who.id,
        file: `note-${pad(index + 1, 4)}.txt`,
        title: `Clinical note ${day}`,
        text: `Clinical note for ${who.first} ${who.last}, ${day}.\n${visit.description}. ${visit.reason}\n`,
        urnReference: index % 2 === 0,
      };
    });
  return { patients, encounters: visits, providers, notes };
}

type Resource = { resourceType: string; id: string } & Record<string, unknown>;

function patientResource(who: Person): Resource {
  const address: Record<string, unknown> = { line: [who.address], city: who.city, state: 'Massachusetts' };
  if (who.zip !== '') address.postalCode = who.zip;
  return {
    resourceType: 'Patient',
    id: who.id,
    identifier: [
      { system: 'https://github.com/synthetichealth/synthea', value: who.id },
      {
        type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR' }] },
        system: 'http://hospital.smarthealthit.org',
        value: who.id,
      },
    ],
    name: [
      {
        use: 'official',
        family: who.last,
        given: [who.first],
        ...(who.prefix ? { prefix: [who.prefix] } : {}),
      },
    ],
    gender: who.gender === 'F' ? 'female' : 'male',
    birthDate: who.birthDate,
    address: [address],
  };
}

function appointmentResource(visit: Encounter): Resource {
  return {
    resourceType: 'Appointment',
    id: visit.id,
    status: 'fulfilled',
    description: visit.description,
    ...(visit.reason === ''
      ? {}
      : {
          reasonCode: [
            { coding: [{ system: 'http://snomed.info/sct', code: '10509002', display: visit.reason }] },
          ],
        }),
    start: offsetInstant(visit.start),
    end: offsetInstant(visit.stop),
    participant: [
      { actor: { reference: `Patient/${visit.patient}` }, status: 'accepted' },
      { actor: { reference: `Practitioner/${visit.provider}` }, status: 'accepted' },
    ],
  };
}

function documentResource(note: Note): Resource {
  const bytes = Buffer.from(note.text, 'utf8');
  return {
    resourceType: 'DocumentReference',
    id: note.id,
    status: 'current',
    subject: { reference: note.urnReference ? `urn:uuid:${note.patient}` : `Patient/${note.patient}` },
    content: [
      {
        attachment: {
          contentType: 'text/plain; charset=utf-8',
          url: note.file,
          title: note.title,
          size: bytes.length,
          hash: createHash('sha1').update(bytes).digest('base64'),
        },
      },
    ],
  };
}

function resources(data: Clinic): Resource[] {
  return [
    ...data.providers.map((id, index) => ({
      resourceType: 'Practitioner',
      id,
      name: [{ family: `Provider ${index + 1}` }],
    })),
    ...data.patients.map(patientResource),
    ...data.encounters.map(appointmentResource),
    ...data.notes.map(documentResource),
  ];
}

const bundle = (entries: readonly Resource[]) => ({
  resourceType: 'Bundle',
  type: 'collection',
  entry: entries.map((resource) => ({ fullUrl: `urn:uuid:${resource.id}`, resource })),
});

/** A Bundle of `rows` Patients as JSON text, streamed entry by entry, for memory tests and benchmarks. */
export async function* fhirPatientsBundle(rows: number, seed: number): AsyncIterable<string> {
  yield '{"resourceType":"Bundle","type":"collection","entry":[';
  let index = 0;
  for (const who of people(rows, seed)) {
    yield `${index++ === 0 ? '' : ','}\n${JSON.stringify({ fullUrl: `urn:uuid:${who.id}`, resource: patientResource(who) })}`;
  }
  yield '\n]}\n';
}

/** The same Patients as NDJSON, one resource a line. */
export async function* fhirPatientsNdjson(rows: number, seed: number): AsyncIterable<string> {
  for (const who of people(rows, seed)) yield `${JSON.stringify(patientResource(who))}\n`;
}

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

async function prettierJson(value: unknown, file: string): Promise<string> {
  const config = await resolveConfig(join(fixturesDir, file));
  return format(JSON.stringify(value), { ...config, filepath: file });
}

const csv = (columns: readonly string[], rows: ReadonlyArray<Record<string, string>>): string =>
  [
    formatCsvRow(columns),
    ...rows.map((row) => formatCsvRow(columns.map((column) => row[column] ?? ''))),
  ].join('\n') + '\n';

function utf16le(text: string): Uint8Array {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

/** Every fixture file, path relative to test/fixtures/import/ → bytes. */
export async function importFixtures(seed = FIXTURE_SEED): Promise<Map<string, Uint8Array>> {
  const data = clinic(seed);
  const entries = resources(data);
  const [first, second, third] = data.patients.map(patientCells);
  const visit = encounterCells(data.encounters[0]!);
  const text = new Map<string, string>([
    ['synthea/patients.csv', await collect(syntheaPatientsCsv(PATIENTS, seed))],
    ['synthea/patients-newer-layout.csv', await collect(syntheaPatientsCsv(PATIENTS, seed, NEWER_COLUMNS))],
    ['synthea/encounters.csv', csv(ENCOUNTER_COLUMNS, data.encounters.map(encounterCells))],
    ['fhir/bundle.json', await prettierJson(bundle(entries), 'fhir/bundle.json')],
    ['fhir/resources.ndjson', entries.map((resource) => `${JSON.stringify(resource)}\n`).join('')],
    ...data.notes.map((note): [string, string] => [`fhir/binaries/${note.file}`, note.text]),
    [
      'bad/malformed.csv',
      [
        formatCsvRow(CLASSIC_COLUMNS),
        csvLine(CLASSIC_COLUMNS, first!).trimEnd(),
        `${first!.Id},${first!.BIRTHDATE},only three fields`,
        csvLine(CLASSIC_COLUMNS, second!).trimEnd().replace(`,${second!.LAST},`, `,"${second!.LAST}"x,`),
        csvLine(CLASSIC_COLUMNS, third!).trimEnd(),
        csvLine(CLASSIC_COLUMNS, { ...first!, Id: 'no-end' })
          .trimEnd()
          .replace(`,${first!.FIRST},`, `,"${first!.FIRST},`),
      ].join('\n') + '\n',
    ],
    [
      'bad/broken-bundle.json.txt',
      JSON.stringify(bundle(entries.slice(5, 8)), null, 2).replace(
        /("birthDate": "[^"]+")(,)(?![\s\S]*"birthDate")/,
        '$1',
      ),
    ],
    [
      'bad/broken.ndjson',
      [entries[5], entries[6]]
        .map((resource) => JSON.stringify(resource))
        .join('\n{"resourceType": "Patient", "id": }\n') + '\n',
    ],
    [
      'bad/missing-columns.csv',
      csv(
        CLASSIC_COLUMNS.filter((column) => !['BIRTHDATE', 'GENDER'].includes(column)),
        [first!],
      ),
    ],
    ['bad/duplicate-ids.csv', csv(CLASSIC_COLUMNS, [first!, second!, { ...third!, Id: first!.Id! }])],
    [
      'bad/unknown-patients-encounters.csv',
      csv(ENCOUNTER_COLUMNS, [visit, { ...visit, Id: 'enc-unknown-1', PATIENT: 'patient-not-anywhere' }]),
    ],
    [
      'bad/bad-dates.csv',
      csv(CLASSIC_COLUMNS, [
        { ...first!, BIRTHDATE: '1985-02-30' },
        { ...second!, BIRTHDATE: '02/14/1985' },
        { ...third!, BIRTHDATE: '' },
      ]),
    ],
    [
      'bad/bad-times-encounters.csv',
      csv(ENCOUNTER_COLUMNS, [
        { ...visit, Id: 'enc-no-zone', START: '2020-03-01T09:00:00' },
        { ...visit, Id: 'enc-backwards', START: '2020-03-01T10:00:00Z', STOP: '2020-03-01T09:30:00Z' },
      ]),
    ],
    [
      'bad/unknown-sex.csv',
      csv(CLASSIC_COLUMNS, [
        { ...first!, GENDER: 'X' },
        { ...second!, GENDER: 'u' },
      ]),
    ],
    ['bad/missing-fields.csv', csv(CLASSIC_COLUMNS, [{ ...first!, LAST: '', FIRST: ' ' }])],
    [
      'bad/fhir-problems.ndjson',
      [
        { id: 'no-type' },
        { ...entries[5], id: 'p-ok' },
        {
          ...appointmentResource(data.encounters[0]!),
          id: 'a-status',
          status: 'done',
          participant: [
            { actor: { reference: 'Patient/p-ok' } },
            { actor: { reference: 'Practitioner/dr-ok', display: 'Dr Ok' } },
          ],
        },
        {
          ...appointmentResource(data.encounters[0]!),
          id: 'a-stranger',
          participant: [{ actor: { reference: 'Patient/stranger' } }],
        },
        { ...documentResource(data.notes[0]!), id: 'd-hash', subject: { reference: 'Patient/p-ok' } },
        { resourceType: 'Observation', id: 'o1' },
      ]
        .map((resource, index) => (index === 4 ? withBadAttachment(resource) : resource))
        .map((resource) => `${JSON.stringify(resource)}\n`)
        .join(''),
    ],
  ]);
  const files = new Map<string, Uint8Array>();
  for (const [path, content] of text) files.set(path, Buffer.from(content, 'utf8'));
  files.set(
    'bad/latin1-patients.csv',
    Buffer.from(csv(CLASSIC_COLUMNS, [first!, { ...second!, FIRST: 'José', LAST: 'Müller' }]), 'latin1'),
  );
  files.set('bad/utf16-patients.csv', utf16le(csv(CLASSIC_COLUMNS, [first!])));
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

function withBadAttachment(resource: Record<string, unknown>): Record<string, unknown> {
  const attachment = {
    contentType: 'application/pdf',
    url: 'never-uploaded.pdf',
    title: 'Scan',
    hash: 'not-base64',
    size: -4,
  };
  return { ...resource, content: [{ attachment }] };
}

if (import.meta.main) {
  for (const [path, content] of await importFixtures()) {
    const file = join(fixturesDir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  console.log(`wrote ${fixturesDir}`);
}
