/**
 * Checks of one record on its own: required fields, dates, codes, Unicode. Each returns the
 * canonical record (trimmed, text in NFC, codes and instants normalised) or null when an error
 * blocks it, and every warning found, so an operator sees all of a row's problems at once.
 *
 * Text is taken in NFC, as the modules' APIs take it, so a decomposed MRN in the file is the MRN a
 * Ward patient already has. Given the SDK's text rules, a patient's MRN and text are refused for
 * the characters nobody can see that the patients API refuses (`invisible_character`). Source ids
 * are kept exactly as the source system wrote them: they are its keys, not text shown to people.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { SdkText } from '../../../src/sdk/index.ts';
import type { ImportRules } from './rules.ts';
import { APPOINTMENT_STATUSES } from './records.ts';
import type {
  AppointmentStatus,
  ImportAddress,
  ImportAppointment,
  ImportDocument,
  ImportPatient,
  RawDocument,
  ImportWarning,
  Raw,
  RawAddress,
  ImportRecordItem,
  RecordKind,
  Sex,
  SourceRecordItem,
} from './records.ts';
import { warn } from './warnings.ts';
import type { At } from './warnings.ts';

export interface Checked<T> {
  record: T | null;
  warnings: ImportWarning[];
}

/** Where a record sits: its row, and how to name its fields in the source. */
export interface RecordPlace {
  row: number;
  field: (name: string) => string;
}

const SEX_CODES: ReadonlyMap<string, Sex> = new Map([
  ['female', 'female'],
  ['f', 'female'],
  ['male', 'male'],
  ['m', 'male'],
  ['other', 'other'],
  ['o', 'other'],
  ['unknown', 'unknown'],
  ['u', 'unknown'],
]);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:0\d|1[0-4]):[0-5]\d)$/;
const BASE64_SHA1 = /^[A-Za-z0-9+/]{27}=$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

export function isCalendarDate(value: string): boolean {
  const parts = DATE.exec(value);
  if (parts === null) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  // There is no year 0 in PostgreSQL's calendar (1 BC comes before AD 1).
  if (year < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The instant in `toISOString` form, or null unless an ISO 8601 date-time with an explicit zone. */
export function normaliseInstant(value: string): string | null {
  const parts = TIMESTAMP.exec(value);
  // Without a zone the instant depends on where the import runs; guessing would shift appointments.
  if (parts === null || !isCalendarDate(parts[1]!)) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

const trimmed = (value: string | undefined): string | undefined => {
  const text = value?.trim();
  return text === '' ? undefined : text;
};

/**
 * How a field's text is taken: `nfc` normalised; `identifier` and `text` normalised and checked
 * with the SDK's rule of that name (an MRN is an identifier, a name is text). Without a rule the
 * value is kept as written.
 */
type TextRule = 'nfc' | 'identifier' | 'text';

/** Collects one record's warnings; `blocked` once any is an error. */
class Findings {
  readonly warnings: ImportWarning[] = [];
  readonly #kind: RecordKind;
  readonly #place: RecordPlace;
  readonly #text: SdkText | undefined;

  constructor(kind: RecordKind, place: RecordPlace, text?: SdkText) {
    this.#kind = kind;
    this.#place = place;
    this.#text = text;
  }

  at(name: string): At {
    return { row: this.#place.row, field: this.#place.field(name) };
  }

  add(warning: ImportWarning): void {
    this.warnings.push(warning);
  }

  required(name: string, label: string, value: string | undefined, limit?: number, rule?: TextRule): string {
    const text = trimmed(value);
    if (text === undefined) this.add(warn.missingField(this.at(name), this.#kind, label));
    return this.storable(name, label, text, limit, rule) ?? '';
  }

  /**
   * A value the database can store: no NUL character (PostgreSQL text cannot hold one), no
   * character its `rule` refuses and, with `limit`, no longer (in NFC) than the column (and the
   * module's own API) allows. Caught here, the row is an error at validation instead of a write
   * that fails at execute, or a value the API would have refused.
   */
  storable(
    name: string,
    label: string,
    value: string | undefined,
    limit?: number,
    rule?: TextRule,
  ): string | undefined {
    if (value === undefined) return undefined;
    const text = rule === undefined ? value : value.normalize('NFC');
    const problem =
      rule === 'identifier'
        ? this.#text?.identifierProblem(text)
        : rule === 'text'
          ? this.#text?.textProblem(text)
          : undefined;
    if (text.includes('\u0000')) this.add(warn.nulCharacter(this.at(name), label));
    else if (problem != null) this.add(warn.invisibleCharacter(this.at(name), label, problem.message));
    const length = [...text].length;
    if (limit !== undefined && length > limit)
      this.add(warn.valueTooLong(this.at(name), label, length, limit));
    return text;
  }

  result<T>(record: T): Checked<T> {
    const blocked = this.warnings.some((warning) => warning.severity === 'error');
    return { record: blocked ? null : record, warnings: this.warnings };
  }
}

/** Drops undefined members, so canonical records compare equal however a reader spelled "absent". */
function compact<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

function address(
  raw: RawAddress | undefined,
  findings: Findings,
  limits: ImportRules['patientLimits'],
): ImportAddress | undefined {
  if (raw === undefined) return undefined;
  const part = (name: keyof RawAddress & string, label: string, limit: number) =>
    findings.storable('address', `address ${label}`, trimmed(raw[name] as string | undefined), limit, 'text');
  const found = compact({
    lines: (raw.lines ?? [])
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .map(
        (line) => findings.storable('address', 'address line', line, limits.addressLine, 'text') as string,
      ),
    city: part('city', 'city', limits.city),
    state: part('state', 'state', limits.state),
    postalCode: part('postalCode', 'postal code', limits.postalCode),
    country: part('country', 'country', limits.country),
  });
  return found.lines.length === 0 && Object.keys(found).length === 1 ? undefined : found;
}

/**
 * `rules`: the clinic modules' (rules.ts). `text`: the SDK's rules (`sdk.text`); without them MRNs
 * and names are normalised but not checked.
 */
export function checkPatient(
  raw: Raw<ImportPatient>,
  place: RecordPlace,
  rules: ImportRules,
  text?: SdkText,
): Checked<ImportPatient> {
  const PATIENT_LIMITS = rules.patientLimits;
  const findings = new Findings('patient', place, text);
  const sourceId = findings.required('sourceId', 'patient id', raw.sourceId);
  const mrn = findings.storable('mrn', 'MRN', trimmed(raw.mrn), PATIENT_LIMITS.mrn, 'identifier');
  // Without an MRN the patient id becomes it (kinds/patients.ts), so it must be one too.
  if (mrn === undefined && sourceId !== '') {
    const asMrn = sourceId.normalize('NFC');
    const problem = text?.identifierProblem(asMrn);
    if (problem != null && !asMrn.includes('\u0000'))
      findings.add(
        warn.invisibleCharacter(findings.at('sourceId'), 'patient id (used as the MRN)', problem.message),
      );
    if ([...asMrn].length > PATIENT_LIMITS.mrn)
      findings.add(
        warn.valueTooLong(
          findings.at('sourceId'),
          'patient id (used as the MRN)',
          [...asMrn].length,
          PATIENT_LIMITS.mrn,
        ),
      );
  }
  const familyName = findings.required(
    'familyName',
    'family name',
    raw.familyName,
    PATIENT_LIMITS.familyName,
    'text',
  );
  const givenName = findings.required(
    'givenName',
    'given name',
    raw.givenName,
    PATIENT_LIMITS.givenName,
    'text',
  );
  const birthDate = findings.required('birthDate', 'birth date', raw.birthDate);
  if (birthDate !== '' && !isCalendarDate(birthDate))
    findings.add(warn.badDate(findings.at('birthDate'), 'birth date', birthDate));
  const code = trimmed(raw.sex);
  const sex = code === undefined ? 'unknown' : SEX_CODES.get(code.toLowerCase());
  if (sex === undefined) findings.add(warn.unknownSex(findings.at('sex'), code!));
  return findings.result(
    compact({
      sourceId,
      mrn,
      familyName,
      givenName,
      birthDate,
      sex: sex ?? 'unknown',
      phone: findings.storable('phone', 'phone', trimmed(raw.phone), PATIENT_LIMITS.phone, 'text'),
      email: findings.storable('email', 'email', trimmed(raw.email), PATIENT_LIMITS.email, 'text'),
      address: address(raw.address, findings, PATIENT_LIMITS),
    }),
  );
}

export function checkAppointment(
  raw: Raw<ImportAppointment>,
  place: RecordPlace,
  rules: ImportRules,
): Checked<ImportAppointment> {
  const APPOINTMENT_LIMITS = rules.appointmentLimits;
  const findings = new Findings('appointment', place);
  const instant = (name: 'start' | 'end') => {
    const value = findings.required(name, name, raw[name]);
    const instant = value === '' ? null : normaliseInstant(value);
    if (value !== '' && instant === null) findings.add(warn.badTimestamp(findings.at(name), name, value));
    return instant;
  };
  const sourceId = findings.required('sourceId', 'appointment id', raw.sourceId);
  const patientSourceId = findings.required('patientSourceId', 'patient reference', raw.patientSourceId);
  const practitionerName = findings.required(
    'practitionerName',
    'practitioner',
    raw.practitionerName,
    APPOINTMENT_LIMITS.practitionerName,
    'nfc',
  );
  const start = instant('start');
  const end = instant('end');
  if (start !== null && end !== null && end <= start)
    findings.add(warn.endBeforeStart(findings.at('end'), start, end));
  const code = findings.required('status', 'status', raw.status).toLowerCase();
  const status = APPOINTMENT_STATUSES.find((known) => known === code);
  if (code !== '' && status === undefined)
    findings.add(warn.unknownStatus(findings.at('status'), raw.status!.trim(), APPOINTMENT_STATUSES));
  // The '' placeholders only fill records that an error already blocks; `result` discards those.
  return findings.result(
    compact({
      sourceId,
      patientSourceId,
      practitionerName,
      start: start ?? '',
      end: end ?? '',
      status: status ?? ('' as AppointmentStatus),
      reason: findings.storable('reason', 'reason', trimmed(raw.reason), APPOINTMENT_LIMITS.reason, 'nfc'),
    }),
  );
}

/** The reference an inline attachment's content is stored under in its job: no upload may take it. */
export const INLINE_PREFIX = 'inline:';
export const inlineRef = (sourceId: string): string => `${INLINE_PREFIX}${sourceId}`;

/**
 * Whether `text` is padded base64. Checked by its alphabet and length rather than one regular
 * expression over groups of four, which overflows V8's regexp stack on a string of a few MB (an
 * inline document well under the size limit).
 */
export function isBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*$/.test(text.replace(/={1,2}$/, ''));
}

/** Bytes `base64` decodes to, without decoding it. */
const decodedSize = (base64: string): number =>
  (base64.length / 4) * 3 - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

export interface DocumentOptions {
  /** The SDK's text rules, as for patients; without them a title is normalised but not checked. */
  text?: SdkText;
  /** Largest inline content, in bytes: the documents module's upload limit. */
  maxBytes?: number;
}

/**
 * A document's own checks. Title and content type go through the documents module's own rules
 * (`checkDocumentTitle`, `checkDocumentContentType`), the ones an upload meets. Content carried
 * inline (`data`) is decoded here, held to the upload size limit, and checked against the hash and
 * size the source declares; it comes back as `content` for the caller to store.
 */
export function checkDocument(
  raw: RawDocument,
  place: RecordPlace,
  rules: ImportRules,
  options: DocumentOptions = {},
): Checked<ImportDocument> & { content?: Buffer } {
  const { checkDocumentTitle, checkDocumentContentType } = rules;
  const findings = new Findings('document', place);
  const sourceId = findings.required('sourceId', 'document id', raw.sourceId);
  const patientSourceId = findings.required('patientSourceId', 'patient reference', raw.patientSourceId);
  const titleChecked = checkDocumentTitle(raw.title, options.text);
  if (!titleChecked.ok) {
    if (trimmed(raw.title) === undefined)
      findings.add(warn.missingField(findings.at('title'), 'document', 'title'));
    else findings.add(warn.invalidDocumentMeta(findings.at('title'), 'invalid_title', titleChecked.message));
  }
  const typeChecked = checkDocumentContentType(raw.contentType);
  if (!typeChecked.ok)
    findings.add(
      warn.invalidDocumentMeta(findings.at('contentType'), 'invalid_content_type', typeChecked.message),
    );
  const hash = trimmed(raw.sha1);
  let sha1 =
    hash !== undefined && BASE64_SHA1.test(hash) ? Buffer.from(hash, 'base64').toString('hex') : undefined;
  if (hash !== undefined && sha1 === undefined)
    findings.add(warn.badHash(findings.at('sha1'), hash, 'a base64 SHA-1 (FHIR attachment.hash)'));
  const sha256Text = trimmed(raw.sha256);
  let sha256 = sha256Text !== undefined && HEX_SHA256.test(sha256Text) ? sha256Text.toLowerCase() : undefined;
  if (sha256Text !== undefined && sha256 === undefined)
    findings.add(warn.badHash(findings.at('sha256'), sha256Text, 'a hex SHA-256'));
  const sizeText = trimmed(raw.size);
  const parsedSize = sizeText !== undefined && /^\d+$/.test(sizeText) ? Number(sizeText) : undefined;
  let size = parsedSize !== undefined && Number.isSafeInteger(parsedSize) ? parsedSize : undefined;
  if (sizeText !== undefined && size === undefined) findings.add(warn.badSize(findings.at('size'), sizeText));

  let binaryRef: string;
  let content: Buffer | undefined;
  if (raw.data === undefined) {
    binaryRef = findings.required('binaryRef', 'binary reference', raw.binaryRef);
  } else {
    binaryRef = inlineRef(sourceId);
    // FHIR's base64Binary may be wrapped over lines; anything else not base64 is an error.
    const base64 = raw.data.replace(/[\t\n\r ]/g, '');
    const maxBytes = options.maxBytes ?? rules.maxDocumentBytes;
    if (!isBase64(base64)) findings.add(warn.badBase64(findings.at('data')));
    else if (decodedSize(base64) > maxBytes)
      findings.add(warn.contentTooLarge(findings.at('data'), decodedSize(base64), maxBytes));
    else {
      content = Buffer.from(base64, 'base64');
      const digest = (algorithm: string) => createHash(algorithm).update(content!).digest('hex');
      const actual = { sha1: digest('sha1'), sha256: digest('sha256'), size: content.length };
      if (sha1 !== undefined && sha1 !== actual.sha1)
        findings.add(warn.contentMismatch(findings.at('sha1'), `SHA-1 ${sha1}`, `SHA-1 ${actual.sha1}`));
      if (sha256 !== undefined && sha256 !== actual.sha256)
        findings.add(
          warn.contentMismatch(findings.at('sha256'), `SHA-256 ${sha256}`, `SHA-256 ${actual.sha256}`),
        );
      if (size !== undefined && size !== actual.size)
        findings.add(warn.contentMismatch(findings.at('size'), `size ${size}`, `${actual.size} bytes`));
      ({ sha1, sha256, size } = actual);
    }
  }
  const result = findings.result(
    compact({
      sourceId,
      patientSourceId,
      title: titleChecked.ok ? titleChecked.value : '',
      contentType: typeChecked.ok ? typeChecked.value : '',
      sha256,
      sha1,
      size,
      binaryRef,
    }),
  );
  return result.record === null || content === undefined ? result : { ...result, content };
}

/** The checks of whichever kind `item` is, with the canonical item when nothing blocks it. */
export function checkItem(
  item: SourceRecordItem,
  place: RecordPlace,
  rules: ImportRules,
  text?: SdkText,
  maxDocumentBytes?: number,
): { item: ImportRecordItem | null; warnings: ImportWarning[]; content?: Buffer } {
  const { row } = item;
  switch (item.kind) {
    case 'patient': {
      const { record, warnings } = checkPatient(item.record, place, rules, text);
      return { item: record && { kind: 'patient', row, record }, warnings };
    }
    case 'appointment': {
      const { record, warnings } = checkAppointment(item.record, place, rules);
      return { item: record && { kind: 'appointment', row, record }, warnings };
    }
    case 'document': {
      const { record, warnings, content } = checkDocument(item.record, place, rules, {
        text,
        maxBytes: maxDocumentBytes,
      });
      return { item: record && { kind: 'document', row, record }, warnings, content };
    }
  }
}
