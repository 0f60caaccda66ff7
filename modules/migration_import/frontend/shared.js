/**
 * What every page of the import layer shares: the API paths, the permissions, and the words the
 * pages use for the module's formats, job states and record kinds.
 */
import { locale } from '@ward/ui';

export const JOBS = '/migration_import/jobs';
export const HOME = '/migration_import';

export const READ = 'migration_import.job.read';
export const WRITE = 'migration_import.job.write';
export const EXECUTE = 'migration_import.job.execute';

export const FORMATS = [
  { value: 'synthea-patients-csv', label: 'Synthea patients.csv (patients)' },
  { value: 'synthea-encounters-csv', label: 'Synthea encounters.csv (appointments)' },
  { value: 'fhir-json', label: 'FHIR R4 Bundle, JSON' },
  { value: 'fhir-ndjson', label: 'FHIR R4 bulk export, NDJSON' },
];

export const formatLabel = (format) => FORMATS.find((entry) => entry.value === format)?.label ?? format;

const STATES = {
  created: 'Uploaded',
  validating: 'Validating',
  validated: 'Validated',
  invalid: 'Invalid',
  executing: 'Executing',
  succeeded: 'Succeeded',
  partially_succeeded: 'Partially succeeded',
  failed: 'Failed',
};

export const stateLabel = (state) => STATES[state] ?? state;

export const STATE_OPTIONS = [
  { value: '', label: 'Any state' },
  ...Object.entries(STATES).map(([value, label]) => ({ value, label })),
];

/** States a background run holds the job in: the page polls until the job leaves them. */
export const isRunning = (job) => job.state === 'validating' || job.state === 'executing';
/** Execute starts from a validated job or re-runs a finished one (the server checks it too). */
export const canStartExecute = (job) =>
  ['validated', 'succeeded', 'partially_succeeded', 'failed'].includes(job.state);
export const canStartValidate = (job) => ['created', 'validated', 'invalid'].includes(job.state);
export const hasExecuted = (job) => ['succeeded', 'partially_succeeded', 'failed'].includes(job.state);

export const KINDS = [
  { key: 'patient', label: 'Patients' },
  { key: 'appointment', label: 'Appointments' },
  { key: 'document', label: 'Documents' },
];

export const dateTime = (value) => (value ? new Date(value).toLocaleString(locale()) : '—');

export function byteSize(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
