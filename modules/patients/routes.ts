/**
 * Patient records at /api/v1/patients/: list (paginated, `?q=` searches names and MRN), read,
 * create, update. Reads need patients.patient.read, writes patients.patient.write.
 */
import type { Context } from 'koa';
import type { ModuleRoutes, WardSdk } from '../../src/sdk/index.ts';
import { CREATE_PATIENT, textFault, UPDATE_PATIENT, type PatientInput } from './lib/patient.ts';
import { createPatient, findPatient, listPatients, SORT_KEY, updatePatient } from './lib/queries.ts';

const READ = 'patients.patient.read';
const WRITE = 'patients.patient.write';
const MAX_SEARCH = 200;

function searchWords(sdk: WardSdk, ctx: Context): string[] {
  const q = sdk.http.queryText(ctx, 'q') ?? '';
  if (q.length > MAX_SEARCH) throw sdk.errors.invalidQuery('q', `must be at most ${MAX_SEARCH} characters`);
  return q.split(/\s+/).filter((word) => word !== '');
}

/** The validated body, refused (422 naming the field) when its text holds a character nobody can see. */
function patientInput(sdk: WardSdk, ctx: Context): PatientInput {
  const input = ctx.request.body as PatientInput;
  const fault = textFault(sdk.text, input);
  if (fault !== null) throw sdk.errors.invalidBody(fault.pointer, fault.message);
  return input;
}

const routes: ModuleRoutes = ({ knex, sdk }) => {
  const { http, errors } = sdk;
  return [
    {
      method: 'GET',
      path: '/patients',
      permission: READ,
      summary: 'List patients by name; ?q= (each word begins a name or the MRN), ?limit, ?cursor or ?offset',
      handler: async (ctx) => {
        const page = await listPatients(sdk, knex, searchWords(sdk, ctx), http.pageRequest(ctx, SORT_KEY));
        // The ids shown, not the search words: those can be a name, and names stay out of the trail's text.
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.list',
          kind: 'patient',
          detail: { ids: page.items.map((patient) => patient.id) },
        });
        ctx.body = page;
      },
    },
    {
      method: 'GET',
      path: '/patients/:id',
      permission: READ,
      summary: 'Read a patient',
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'patient');
        const patient = await findPatient(knex, id);
        if (patient === null) throw errors.notFound('patient', id);
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.read',
          kind: 'patient',
          recordId: id,
          patientId: id,
        });
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
        const patient = await createPatient(sdk, sdk.acting(ctx), patientInput(sdk, ctx));
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
        const id = http.idParam(ctx, 'id', 'patient');
        const patient = await updatePatient(sdk, sdk.acting(ctx), id, patientInput(sdk, ctx));
        if (patient === null) throw errors.notFound('patient', id);
        ctx.body = patient;
      },
    },
  ];
};

export default routes;
