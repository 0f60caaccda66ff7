/**
 * Every route of the clinic modules × every kind of caller: holding the route's permission (and
 * only it) succeeds; holding anything else is 403 `permission denied: <name>`, exact; no
 * credential is 401. Then the roles the manifests define, and a session from a real sign-in.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { addUser, call, signIn } from '../helpers/app.ts';
import { api, clinic, errorOf, PERMISSIONS, type Permission, type Role } from './helpers.ts';

interface Route {
  method: string;
  path: string;
  permission: Permission;
  /** Status when allowed. */
  ok: number;
  json?: unknown;
  body?: Buffer;
}

const ROUTES: Route[] = [
  { method: 'GET', path: '/api/v1/patients/patients', permission: 'patients.patient.read', ok: 200 },
  { method: 'GET', path: '/api/v1/patients/patients/1', permission: 'patients.patient.read', ok: 200 },
  {
    method: 'POST',
    path: '/api/v1/patients/patients',
    permission: 'patients.patient.write',
    ok: 201,
    json: { mrn: 'NEW-1', familyName: 'New', givenName: 'Patient' },
  },
  {
    method: 'PATCH',
    path: '/api/v1/patients/patients/1',
    permission: 'patients.patient.write',
    ok: 200,
    json: { phone: '555-0100' },
  },
  {
    method: 'GET',
    path: '/api/v1/appointments/practitioners',
    permission: 'appointments.appointment.read',
    ok: 200,
  },
  {
    method: 'GET',
    path: '/api/v1/appointments/practitioners/1',
    permission: 'appointments.appointment.read',
    ok: 200,
  },
  {
    method: 'POST',
    path: '/api/v1/appointments/practitioners',
    permission: 'appointments.practitioner.write',
    ok: 201,
    json: { name: 'Dr. New' },
  },
  {
    method: 'PATCH',
    path: '/api/v1/appointments/practitioners/1',
    permission: 'appointments.practitioner.write',
    ok: 200,
    json: { specialty: 'General practice' },
  },
  {
    method: 'GET',
    path: '/api/v1/appointments/staff',
    permission: 'appointments.practitioner.write',
    ok: 200,
  },
  {
    method: 'GET',
    path: '/api/v1/appointments/appointments',
    permission: 'appointments.appointment.read',
    ok: 200,
  },
  {
    method: 'GET',
    path: '/api/v1/appointments/appointments/1',
    permission: 'appointments.appointment.read',
    ok: 200,
  },
  {
    method: 'POST',
    path: '/api/v1/appointments/appointments',
    permission: 'appointments.appointment.write',
    ok: 201,
    json: { patientId: 1, practitionerId: 1, startAt: '2026-05-01T09:00:00Z', endAt: '2026-05-01T09:15:00Z' },
  },
  {
    method: 'PATCH',
    path: '/api/v1/appointments/appointments/1',
    permission: 'appointments.appointment.write',
    ok: 200,
    json: { status: 'arrived' },
  },
  {
    method: 'POST',
    path: '/api/v1/documents/patients/1/documents?title=scan',
    permission: 'documents.document.write',
    ok: 201,
    body: Buffer.from([0, 1, 2, 255]),
  },
  {
    method: 'GET',
    path: '/api/v1/documents/patients/1/documents',
    permission: 'documents.document.read',
    ok: 200,
  },
  { method: 'GET', path: '/api/v1/documents/documents/1', permission: 'documents.document.read', ok: 200 },
  {
    method: 'GET',
    path: '/api/v1/documents/documents/1/content',
    permission: 'documents.document.read',
    ok: 200,
  },
];

/** Patient 1, practitioner 1 with appointment 1 and document 1, so that every route has something to find. */
async function world(t: ExecutionContext) {
  const running = await clinic(t);
  const { base, as } = running;
  await api(base, as('admin'), 'POST', '/api/v1/patients/patients', {
    json: { mrn: 'P-1', familyName: 'First', givenName: 'Patient' },
  });
  await api(base, as('admin'), 'POST', '/api/v1/appointments/practitioners', { json: { name: 'Dr. First' } });
  await api(base, as('admin'), 'POST', '/api/v1/appointments/appointments', {
    json: { patientId: 1, practitionerId: 1, startAt: '2026-04-01T09:00:00Z', endAt: '2026-04-01T09:15:00Z' },
  });
  await api(base, as('admin'), 'POST', '/api/v1/documents/patients/1/documents?title=first', {
    body: Buffer.from('first'),
  });
  return running;
}

const send = (base: string, token: string | undefined, route: Route) =>
  api(base, token, route.method, route.path, { json: route.json, body: route.body });

const denied = (permission: string) => ({
  error: {
    code: 'permission_denied',
    message: `permission denied: ${permission}`,
    hint: `ask an administrator for a role that grants ${permission} (ward users grant <user> <role>)`,
  },
});

for (const route of ROUTES) {
  test(`${route.method} ${route.path}: allowed with ${route.permission} only, 403 with anything else, 401 without a credential`, async (t) => {
    const { base, holding, as } = await world(t);
    const allowed = await send(base, holding(route.permission), route);
    t.is(allowed.status, route.ok, allowed.text);
    for (const other of PERMISSIONS.filter((permission) => permission !== route.permission)) {
      const refused = await send(base, holding(other), route);
      t.is(refused.status, 403, `holding ${other}`);
      t.deepEqual(refused.body, denied(route.permission), `holding ${other}`);
    }
    const nobody = await send(base, as('nobody'), route);
    t.is(nobody.status, 403);
    t.deepEqual(nobody.body, denied(route.permission));
    const anonymous = await send(base, undefined, route);
    t.is(anonymous.status, 401);
    t.is(errorOf(anonymous).code, 'unauthenticated');
    t.is(errorOf(anonymous).message, 'this route needs a signed-in user, and the request has no credential');
  });
}

/** What each manifest role may do, route by route. */
const ROLE_CAN: Record<Exclude<Role, 'nobody'>, (permission: Permission) => boolean> = {
  admin: () => true,
  clinician: (permission) => permission !== 'appointments.practitioner.write',
  receptionist: (permission) =>
    !permission.startsWith('documents.') &&
    permission !== 'appointments.practitioner.write' &&
    permission !== 'appointments.appointment.overbook',
};

for (const [role, can] of Object.entries(ROLE_CAN)) {
  test(`the manifests' ${role} role reaches exactly its routes`, async (t) => {
    const { base, as } = await world(t);
    for (const route of ROUTES) {
      const answer = await send(base, as(role as Role), route);
      t.is(answer.status, can(route.permission) ? route.ok : 403, `${route.method} ${route.path}`);
    }
  });
}

test('a signed-in session reaches the routes too; a cookie-authenticated write needs the CSRF token', async (t) => {
  const { base, knex } = await world(t);
  await addUser(knex, 'cleo', ['clinician']);
  const session = await signIn(base, 'cleo');
  const me = await call(base, 'GET', '/api/v1/me', { token: session.token });
  const permissions = (me.body as { permissions: string[] }).permissions;
  for (const permission of PERMISSIONS)
    t.is(permissions.includes(permission), permission !== 'appointments.practitioner.write', permission);
  t.is((await call(base, 'GET', '/api/v1/patients/patients', { cookie: session.cookie })).status, 200);
  const json = { mrn: 'C-1', familyName: 'Cookie', givenName: 'Monster' };
  const forged = await call(base, 'POST', '/api/v1/patients/patients', { cookie: session.cookie, json });
  t.is(forged.status, 403);
  t.is(errorOf(forged).code, 'csrf_failed');
  const written = await call(base, 'POST', '/api/v1/patients/patients', {
    cookie: session.cookie,
    csrf: session.csrfToken,
    json,
  });
  t.is(written.status, 201);
});

test("navigation entries are shown to the roles that may read, clinical pages first in a clinic's order", async (t) => {
  const { base, as } = await world(t);
  const paths = async (role: Role) =>
    (
      (await api(base, as(role), 'GET', '/api/v1/modules/-/active')).body as {
        navigation: Array<{ path: string }>;
      }
    ).navigation.map((entry) => entry.path);
  t.deepEqual(await paths('receptionist'), ['/patients', '/appointments']);
  t.deepEqual(await paths('clinician'), ['/patients', '/appointments', '/documents']);
  t.deepEqual(await paths('nobody'), []);
});
