/**
 * Patient records at /api/v1/patients/: list (paginated, `?q=` searches names and MRN), read,
 * create, update. Reads need patients.patient.read, writes patients.patient.write.
 */
import type { Context } from 'koa';
import type { ModuleRoutes } from '../../src/api/module-routes.ts';
import { pageRequest } from './lib/page.ts';
import { CREATE_PATIENT, UPDATE_PATIENT, type PatientInput } from './lib/patient.ts';
import { createPatient, findPatient, listPatients, SORT_KEY, updatePatient } from './lib/queries.ts';
import { idParam, invalidQuery, notFound, queryText } from './lib/request.ts';

const READ = 'patients.patient.read';
const WRITE = 'patients.patient.write';
const MAX_SEARCH = 200;

function searchWords(ctx: Context): string[] {
  const q = queryText(ctx, 'q') ?? '';
  if (q.length > MAX_SEARCH) throw invalidQuery('q', `must be at most ${MAX_SEARCH} characters`);
  return q.split(/\s+/).filter((word) => word !== '');
}

const routes: ModuleRoutes = ({ knex }) => [
  {
    method: 'GET',
    path: '/patients',
    permission: READ,
    summary: 'List patients by name; ?q= (each word begins a name or the MRN), ?limit, ?cursor or ?offset',
    handler: async (ctx) => {
      ctx.body = await listPatients(knex, searchWords(ctx), pageRequest(ctx, SORT_KEY));
    },
  },
  {
    method: 'GET',
    path: '/patients/:id',
    permission: READ,
    summary: 'Read a patient',
    handler: async (ctx) => {
      const id = idParam(ctx, 'id', 'patient');
      const patient = await findPatient(knex, id);
      if (patient === null) throw notFound('patient', id);
      ctx.body = patient;
    },
  },
  {
    method: 'POST',
    path: '/patients',
    permission: WRITE,
    summary: 'Create a patient; a duplicate MRN is 409',
    body: CREATE_PATIENT,
    handler: async (ctx) => {
      const patient = await createPatient(knex, ctx.request.body as PatientInput);
      ctx.status = 201;
      ctx.set('Location', `${ctx.path}/${patient.id}`);
      ctx.body = patient;
    },
  },
  {
    method: 'PATCH',
    path: '/patients/:id',
    permission: WRITE,
    summary: 'Change some fields of a patient; a duplicate MRN is 409',
    body: UPDATE_PATIENT,
    handler: async (ctx) => {
      const id = idParam(ctx, 'id', 'patient');
      const patient = await updatePatient(knex, id, ctx.request.body as PatientInput);
      if (patient === null) throw notFound('patient', id);
      ctx.body = patient;
    },
  },
];

export default routes;
