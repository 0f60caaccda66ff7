/** The formats a job can name, each a reader and the way it names fields. */
import { FHIR_FIELDS } from './fhir-map.ts';
import { readFhirJson, readFhirNdjson } from './fhir.ts';
import type { ByteSource, ImportItem, ReadOptions, SourceFields, SourceItem } from './records.ts';
import { readSyntheaEncounters, readSyntheaPatients, SYNTHEA_FIELDS } from './synthea.ts';
import { validateImport } from './validate.ts';
import type { ValidateOptions } from './validate.ts';

export const IMPORT_FORMATS = [
  'synthea-patients-csv',
  'synthea-encounters-csv',
  'fhir-json',
  'fhir-ndjson',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

interface FormatEntry {
  read: (source: ByteSource, options?: ReadOptions) => AsyncGenerator<SourceItem>;
  fields: SourceFields;
}

const FORMATS: Record<ImportFormat, FormatEntry> = {
  'synthea-patients-csv': { read: readSyntheaPatients, fields: SYNTHEA_FIELDS },
  'synthea-encounters-csv': { read: readSyntheaEncounters, fields: SYNTHEA_FIELDS },
  'fhir-json': { read: readFhirJson, fields: FHIR_FIELDS },
  'fhir-ndjson': { read: readFhirNdjson, fields: FHIR_FIELDS },
};

export const isImportFormat = (value: string): value is ImportFormat =>
  (IMPORT_FORMATS as readonly string[]).includes(value);

/** Raw records and reading problems of `source`, streamed. */
export function readImport(
  format: ImportFormat,
  source: ByteSource,
  options?: ReadOptions,
): AsyncGenerator<SourceItem> {
  return FORMATS[format].read(source, options);
}

export function sourceFields(format: ImportFormat): SourceFields {
  return FORMATS[format].fields;
}

/** Read and validate in one stream: what the validate and execute steps of a job iterate. */
export function importItems(
  format: ImportFormat,
  source: ByteSource,
  options: ReadOptions & Omit<ValidateOptions, 'fields'>,
): AsyncGenerator<ImportItem> {
  return validateImport(readImport(format, source, options), { ...options, fields: sourceFields(format) });
}
