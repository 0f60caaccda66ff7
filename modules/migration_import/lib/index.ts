/**
 * The pure, streaming core of `migration_import`: read a source, validate it, plan each record.
 * No HTTP, no database, no filesystem; the job layer (`jobs/`: store, background runs, writers;
 * `http/`: the routes' handlers) supplies bytes and lookups and stores results.
 */
export type {
  AppointmentStatus,
  ByteSource,
  ImportAddress,
  ImportAppointment,
  ImportDocument,
  ImportItem,
  ImportPatient,
  ImportRecordItem,
  ImportWarning,
  Raw,
  RawAddress,
  ReadOptions,
  RecordKind,
  RecordOf,
  Severity,
  Sex,
  SourceFields,
  SourceItem,
  SourceRecordItem,
  WarningItem,
} from './records.ts';
export { APPOINTMENT_STATUSES } from './records.ts';
export { IMPORT_FORMATS, importItems, isImportFormat, readImport, sourceFields } from './formats.ts';
export type { ImportFormat } from './formats.ts';
export { ImportValidator, validateImport } from './validate.ts';
export type { ValidateOptions } from './validate.ts';
export { checkAppointment, checkDocument, checkPatient } from './checks.ts';
export { importRules } from './rules.ts';
export type { ImportRules } from './rules.ts';
export { planItem } from './plan.ts';
export type { Existing, FieldChange, PlanAction, PlanStep, Values } from './plan.ts';
export { PreviewBuilder } from './preview.ts';
export type { ActionCounts, Preview } from './preview.ts';
export { inBatches } from './batch.ts';
export { formatCsvRow } from './csv.ts';
export { WARNING_CODES } from './warnings.ts';
export type { WarningCode } from './warnings.ts';
