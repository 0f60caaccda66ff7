/**
 * The clinic modules (patients, appointments, documents) installed by the real controller on a
 * real PostgreSQL, prepared once per test process and copied per test, served by Ward's real app
 * in-process. Callers hold API tokens: one per permission (roles from a grants file, so each holds
 * exactly one), one holding none, and the roles the manifests define.
 */
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { foldedColumns } from '../../modules/patients/lib/fold.ts';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { addUser, call, install, startApp, type Answer } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';
import { templateDatabase, testDatabase } from '../helpers/database.ts';

export const PERMISSIONS = [
  'patients.patient.read',
  'patients.patient.write',
  'appointments.appointment.read',
  'appointments.appointment.write',
  'appointments.appointment.overbook',
  'appointments.practitioner.write',
  'documents.document.read',
  'documents.document.write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Roles of the manifests, and one the grants file defines with nothing in it. */
export const ROLES = ['admin', 'clinician', 'receptionist', 'nobody'] as const;
export type Role = (typeof ROLES)[number];

const only = (permission: string) => `only_${permission.replaceAll('.', '_')}`;

const GRANTS = {
  roles: {
    nobody: [],
    ...Object.fromEntries(PERMISSIONS.map((permission) => [only(permission), [permission]])),
  },
};

let template: Promise<string> | undefined;

/** A fresh database with base, patients, appointments and documents installed, and no user. */
export async function clinicDatabase(t: ExecutionContext): Promise<{ url: string; knex: Knex }> {
  template ??= templateDatabase((url) => install(url, ['appointments', 'documents']));
  return testDatabase(t, { template: await template });
}

export interface Clinic {
  base: string;
  knex: Knex;
  storage: string;
  /** A token whose user holds exactly this permission. */
  holding: (permission: Permission) => string;
  /** A token whose user holds this role. */
  as: (role: Role) => string;
}

async function tokenFor(knex: Knex, username: string, role: string): Promise<string> {
  const userId = await addUser(knex, username, [role], null);
  return (await createApiToken(knex, { userId, role: null, name: null, expiresAt: null })).secret;
}

export async function clinic(t: ExecutionContext): Promise<Clinic> {
  const { knex } = await clinicDatabase(t);
  const storage = await scratchDir('ward-clinic-');
  const tokens = new Map<string, string>();
  for (const role of [...ROLES, ...PERMISSIONS.map(only)]) tokens.set(role, await tokenFor(knex, role, role));
  const { base } = await startApp(t, knex, { grants: GRANTS, overrides: { storageDir: storage } });
  // Teardowns run last-registered first: this one lets a download the client has read in full
  // finish on the server before the connections are closed, or Koa reports a premature close.
  t.teardown(() => new Promise((resolve) => setTimeout(resolve, 20)));
  const token = (role: string) => tokens.get(role) as string;
  return { base, knex, storage, holding: (permission) => token(only(permission)), as: token };
}

export interface PatientValues {
  mrn: string;
  family_name: string;
  given_name: string;
  [column: string]: unknown;
}

/**
 * Rows straight into the table: faster than the API when a test needs many. The folded columns
 * are computed as the module's write path does, so the rows can be searched.
 */
export async function insertPatients(knex: Knex, rows: PatientValues[]): Promise<number[]> {
  const folded = rows.map((row) => ({
    ...foldedColumns({
      mrn: row.mrn,
      familyName: row.family_name,
      givenName: row.given_name,
      phone: typeof row.phone === 'string' ? row.phone : null,
    }),
    ...row,
  }));
  return (await knex('patients_patient').insert(folded).returning('id')).map((row: { id: number }) => row.id);
}

export const errorOf = (answer: Answer) =>
  (answer.body as { error: { code: string; message: string; hint: string } }).error;

/** An API call as `token`; `json` bodies are sent as JSON. */
export const api = (
  base: string,
  token: string | undefined,
  method: string,
  path: string,
  options: Parameters<typeof call>[3] = {},
) => call(base, method, path, { token, ...options });
