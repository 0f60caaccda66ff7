/**
 * A patient as the API shows it (camelCase) and as `patients_patient` stores it, and the JSON
 * Schemas of the bodies that create and change one.
 */
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

const PROPERTIES = {
  // No surrounding spaces: an MRN is compared exactly, and " 42" would look like a second "42".
  mrn: { type: 'string', minLength: 1, maxLength: 64, pattern: '^\\S(.*\\S)?$' },
  familyName: text(255),
  givenName: text(255),
  birthDate: optional({ type: 'string', format: 'date' }),
  sex: { enum: SEXES },
  phone: optional({ type: 'string', minLength: 1, maxLength: 50 }),
  email: optional({ type: 'string', format: 'email', maxLength: 254 }),
  address: optional({
    type: 'object',
    additionalProperties: false,
    properties: {
      line: { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 200 } },
      city: { type: 'string', maxLength: 100 },
      state: { type: 'string', maxLength: 100 },
      postalCode: { type: 'string', maxLength: 20 },
      country: { type: 'string', maxLength: 100 },
    },
  }),
};

export const CREATE_PATIENT = {
  type: 'object',
  additionalProperties: false,
  required: ['mrn', 'familyName', 'givenName'],
  properties: PROPERTIES,
};

export const UPDATE_PATIENT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: PROPERTIES,
};
