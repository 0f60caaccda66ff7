/**
 * Synthea's CSV export: `patients.csv` as patients, `encounters.csv` as appointments. Columns are
 * found by header name (case-insensitive), never by position, so Synthea versions that add columns
 * (FIPS, INCOME, MIDDLE) read the same. Synthea has no MRN column: its FHIR export uses the patient
 * `Id` as the MR identifier, and so do we. Encounters name their practitioner only by the PROVIDER
 * id, which becomes `practitionerName`; they are all in the past, hence `fulfilled`.
 */
import { parseCsv } from './csv.ts';
import { decodeUtf8 } from './decode.ts';
import { stopAtFault } from './fault.ts';
import type {
  ByteSource,
  Raw,
  RawAddress,
  ReadOptions,
  RecordKind,
  RecordOf,
  SourceFields,
  SourceItem,
} from './records.ts';
import { warn } from './warnings.ts';

type Cell = (column: string) => string | undefined;

interface Layout<K extends RecordKind> {
  kind: K;
  /** In Synthea's spelling, matched case-insensitively. */
  required: readonly string[];
  toRecord: (cell: Cell) => Raw<RecordOf[K]>;
}

function address(cell: Cell): RawAddress | undefined {
  const found: RawAddress = {
    lines: cell('ADDRESS') === undefined ? undefined : [cell('ADDRESS')!],
    city: cell('CITY'),
    state: cell('STATE'),
    postalCode: cell('ZIP'),
  };
  return Object.values(found).some((value) => value !== undefined) ? found : undefined;
}

const PATIENTS: Layout<'patient'> = {
  kind: 'patient',
  required: ['Id', 'BIRTHDATE', 'FIRST', 'LAST', 'GENDER'],
  toRecord: (cell) => ({
    sourceId: cell('ID'),
    mrn: cell('ID'),
    familyName: cell('LAST'),
    givenName:
      cell('FIRST') === undefined ? undefined : [cell('FIRST'), cell('MIDDLE')].filter(Boolean).join(' '),
    birthDate: cell('BIRTHDATE'),
    sex: cell('GENDER'),
    address: address(cell),
  }),
};

const ENCOUNTERS: Layout<'appointment'> = {
  kind: 'appointment',
  required: ['Id', 'START', 'STOP', 'PATIENT', 'PROVIDER'],
  toRecord: (cell) => ({
    sourceId: cell('ID'),
    patientSourceId: cell('PATIENT'),
    practitionerName: cell('PROVIDER'),
    start: cell('START'),
    end: cell('STOP'),
    status: 'fulfilled',
    // The encounter's own description ("Encounter for check up") when Synthea recorded no reason.
    reason: cell('REASONDESCRIPTION') ?? cell('DESCRIPTION'),
  }),
};

export const SYNTHEA_FIELDS: SourceFields = {
  patient: {
    sourceId: 'Id',
    mrn: 'Id',
    familyName: 'LAST',
    givenName: 'FIRST',
    birthDate: 'BIRTHDATE',
    sex: 'GENDER',
    address: 'ADDRESS',
  },
  appointment: {
    sourceId: 'Id',
    patientSourceId: 'PATIENT',
    practitionerName: 'PROVIDER',
    start: 'START',
    end: 'STOP',
    reason: 'REASONDESCRIPTION',
  },
};

async function* readRows<K extends RecordKind>(
  source: ByteSource,
  layout: Layout<K>,
  options: ReadOptions,
): AsyncGenerator<SourceItem> {
  let header: string[] | undefined;
  const columns = new Map<string, number>();
  for await (const record of parseCsv(decodeUtf8(source), options.maxRecordChars)) {
    if ('problem' in record) {
      const field = header?.[record.column] ?? record.problem.field;
      yield { kind: 'warning', warning: { ...record.problem, field } };
      if (header === undefined) return;
      continue;
    }
    if (header === undefined) {
      header = record.fields.map((name) => name.trim());
      for (const [index, name] of header.entries()) {
        const first = columns.get(name.toUpperCase());
        if (first === undefined || name === '') {
          columns.set(name.toUpperCase(), index);
          continue;
        }
        yield {
          kind: 'warning',
          warning: warn.duplicateColumn({ row: record.line, field: name }, name, first + 1, index + 1),
        };
        return;
      }
      const missing = layout.required.filter((name) => !columns.has(name.toUpperCase()));
      if (missing.length > 0) {
        yield {
          kind: 'warning',
          warning: warn.missingColumns({ row: record.line, field: missing.join(', ') }, missing),
        };
        return;
      }
      continue;
    }
    const fields = record.fields;
    if (fields.length !== header.length) {
      yield {
        kind: 'warning',
        warning: warn.columnCount({ row: record.line }, fields.length, header.length),
      };
      continue;
    }
    const cell: Cell = (name) => {
      const index = columns.get(name);
      const value = index === undefined ? undefined : fields[index];
      return value === '' ? undefined : value;
    };
    yield { kind: layout.kind, row: record.line, record: layout.toRecord(cell) } as SourceItem;
  }
  if (header === undefined) yield { kind: 'warning', warning: warn.emptyFile({ row: 1 }) };
}

export const readSyntheaPatients = (
  source: ByteSource,
  options: ReadOptions = {},
): AsyncGenerator<SourceItem> => stopAtFault(readRows(source, PATIENTS, options));

export const readSyntheaEncounters = (
  source: ByteSource,
  options: ReadOptions = {},
): AsyncGenerator<SourceItem> => stopAtFault(readRows(source, ENCOUNTERS, options));
