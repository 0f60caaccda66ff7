/**
 * A patient as the API shows it (camelCase) and as `patients_patient` stores it, the JSON Schemas
 * of the bodies that create and change one, and the Unicode rules its text keeps.
 */
import type { SdkText } from '../../../src/sdk/index.ts';

export const SEXES = ['female', 'male', 'other', 'unknown'] as const;
export type Sex = (typeof SEXES)[number];

/** FHIR's Address, trimmed to what the clinic keeps; every field optional. */
export interface Address {
  line?: string[];
  city?: string;
  state?: string;
  postalCode?: string;
  country?: string;
}

export interface Patient {
  id: number;
  mrn: string;
  familyName: string;
  givenName: string;
  /** YYYY-MM-DD. */
  birthDate: string | null;
  sex: Sex;
  phone: string | null;
  email: string | null;
  address: Address | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface PatientRow {
  id: number;
  mrn: string;
  family_name: string;
  given_name: string;
  birth_date: string | null;
  sex: Sex;
  phone: string | null;
  email: string | null;
  address: Address | null;
  created_at: Date;
  updated_at: Date;
}

export type PatientInput = Partial<Omit<Patient, 'id' | 'createdAt' | 'updatedAt'>>;

/** API field → column, for the fields a client may write. */
export const COLUMNS: Readonly<Record<keyof PatientInput, keyof PatientRow>> = {
  mrn: 'mrn',
  familyName: 'family_name',
  givenName: 'given_name',
  birthDate: 'birth_date',
  sex: 'sex',
  phone: 'phone',
  email: 'email',
  address: 'address',
};

export function presentPatient(row: PatientRow): Patient {
  return {
    id: row.id,
    mrn: row.mrn,
    familyName: row.family_name,
    givenName: row.given_name,
    birthDate: row.birth_date,
    sex: row.sex,
    phone: row.phone,
    email: row.email,
    address: row.address,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S' });
const optional = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

/** Longest values, in characters, of the text fields: the API's schema and migration_import's checks. */
export const PATIENT_LIMITS = {
  mrn: 64,
  familyName: 255,
  givenName: 255,
  phone: 50,
  email: 254,
  addressLine: 200,
  city: 100,
  state: 100,
  postalCode: 20,
  country: 100,
} as const;

const PROPERTIES = {
  // No surrounding spaces: an MRN is compared exactly, and " 42" would look like a second "42".
  mrn: { type: 'string', minLength: 1, maxLength: PATIENT_LIMITS.mrn, pattern: '^\\S(.*\\S)?$' },
  familyName: text(PATIENT_LIMITS.familyName),
  givenName: text(PATIENT_LIMITS.givenName),
  birthDate: optional({ type: 'string', format: 'date' }),
  sex: { enum: SEXES },
  phone: optional({ type: 'string', minLength: 1, maxLength: PATIENT_LIMITS.phone }),
  email: optional({ type: 'string', format: 'email', maxLength: PATIENT_LIMITS.email }),
  address: optional({
    type: 'object',
    additionalProperties: false,
    properties: {
      line: { type: 'array', maxItems: 4, items: { type: 'string', maxLength: PATIENT_LIMITS.addressLine } },
      city: { type: 'string', maxLength: PATIENT_LIMITS.city },
      state: { type: 'string', maxLength: PATIENT_LIMITS.state },
      postalCode: { type: 'string', maxLength: PATIENT_LIMITS.postalCode },
      country: { type: 'string', maxLength: PATIENT_LIMITS.country },
    },
  }),
};

/** Without an `mrn`, Ward assigns one (lib/mrn.ts). */
export const CREATE_PATIENT = {
  type: 'object',
  additionalProperties: false,
  required: ['familyName', 'givenName'],
  properties: PROPERTIES,
};

export const UPDATE_PATIENT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: PROPERTIES,
};

/** Where a body's text breaks the SDK's Unicode rules: a JSON pointer and what is wrong there. */
export interface TextFault {
  pointer: string;
  message: string;
}

/**
 * The first text field of `input` holding a character nobody can see. The MRN is an identifier:
 * no control, format or bidi character, no space but U+0020. Names and the other fields are text:
 * no control or bidi character, and zero-width joiners only between letters, where Persian and
 * Indic names need them (`sdk.text` has the exact rules).
 */
export function textFault(text: SdkText, input: PatientInput): TextFault | null {
  const address = input.address ?? {};
  const fields: Array<[pointer: string, value: string | null | undefined]> = [
    ['/familyName', input.familyName],
    ['/givenName', input.givenName],
    ['/phone', input.phone],
    ['/email', input.email],
    ...(address.line ?? []).map((line, index): [string, string] => [`/address/line/${index}`, line]),
    ['/address/city', address.city],
    ['/address/state', address.state],
    ['/address/postalCode', address.postalCode],
    ['/address/country', address.country],
  ];
  const mrn = input.mrn === undefined ? null : text.identifierProblem(input.mrn);
  if (mrn !== null)
    return { pointer: '/mrn', message: `${mrn.message}; an MRN holds only visible characters` };
  for (const [pointer, value] of fields) {
    const problem = typeof value === 'string' ? text.textProblem(value) : null;
    if (problem !== null) return { pointer, message: `${problem.message}; remove it` };
  }
  return null;
}
