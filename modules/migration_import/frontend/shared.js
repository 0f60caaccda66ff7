/**
 * What every page of the import layer shares: the API paths, the permissions, and the words the
 * pages use for the module's formats, job states and record kinds.
 */
import { locale, translator } from '@ward/ui';
import messages from './messages.js';

export const JOBS = '/migration_import/jobs';
export const HOME = '/migration_import';

export const READ = 'migration_import.job.read';
export const WRITE = 'migration_import.job.write';
export const EXECUTE = 'migration_import.job.execute';

/** This layer's words in the language in use (the same as `context.t`, for code outside a page). */
export const t = translator(messages);

/** A list of `{value, label}` whose labels are read when drawn, so they follow the language. */
const labelled = (values, prefix) =>
  values.map((value) => ({
    value,
    get label() {
      return t(`${prefix}.${value}`);
    },
  }));

export const FORMATS = labelled(
  ['synthea-patients-csv', 'synthea-encounters-csv', 'fhir-json', 'fhir-ndjson'],
  'format',
);

export const formatLabel = (format) => FORMATS.find((entry) => entry.value === format)?.label ?? format;

const STATES = [
  'created',
  'validating',
  'validated',
  'invalid',
  'executing',
  'succeeded',
  'partially_succeeded',
  'failed',
];

export const stateLabel = (state) => (STATES.includes(state) ? t(`state.${state}`) : state);

export const STATE_OPTIONS = [
  {
    value: '',
    get label() {
      return t('state.any');
    },
  },
  ...labelled(STATES, 'state'),
];

/** States a background run holds the job in: the page polls until the job leaves them. */
export const isRunning = (job) => job.state === 'validating' || job.state === 'executing';
/** Execute starts from a validated job or re-runs a finished one (the server checks it too). */
export const canStartExecute = (job) =>
  ['validated', 'succeeded', 'partially_succeeded', 'failed'].includes(job.state);
export const canStartValidate = (job) => ['created', 'validated', 'invalid'].includes(job.state);
export const hasExecuted = (job) => ['succeeded', 'partially_succeeded', 'failed'].includes(job.state);

export const KINDS = ['patient', 'appointment', 'document'].map((key) => ({
  key,
  get label() {
    return t(`kind.${key}`);
  },
}));

export const dateTime = (value) => (value ? new Date(value).toLocaleString(locale()) : '—');

export function byteSize(bytes) {
  if (bytes < 1024) return t('bytes', { count: bytes });
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
