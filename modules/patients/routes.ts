/**
 * Patient records at /api/v1/patients/: list (paginated, `?q=` searches names, MRN, birth date
 * and phone, ignoring case, accents and punctuation), read, create (warning of a probable
 * duplicate; assigning the MRN when none is given), update. Reads need patients.patient.read,
 * writes patients.patient.write.
 */
import type { Context, ModuleRoutes, WardSdk } from '../../src/sdk/index.ts';
import { DEFAULT_MRN_FORMAT, MRN_FORMAT_VARIABLE, parseMrnFormat, type MrnFormat } from './lib/mrn.ts';
import { CREATE_PATIENT, textFault, UPDATE_PATIENT, type Patient, type PatientInput } from './lib/patient.ts';
import {
  createPatient,
  findPatient,
  listPatients,
  probableDuplicates,
  SORT_KEY,
  updatePatient,
} from './lib/queries.ts';
import { parseSearch, type SearchTerm } from './lib/search.ts';

const READ = 'patients.patient.read';
const WRITE = 'patients.patient.write';
const MAX_SEARCH = 200;
/** `POST /patients?confirm=duplicate` registers a patient despite a probable duplicate. */
const CONFIRM_DUPLICATE = 'duplicate';

function searchTerms(sdk: WardSdk, ctx: Context): SearchTerm[] {
  const q = sdk.http.queryText(ctx, 'q') ?? '';
  if (q.length > MAX_SEARCH) throw sdk.errors.invalidQuery('q', `must be at most ${MAX_SEARCH} characters`);
  return parseSearch(q);
}

/** The validated body, refused (422 naming the field) when its text holds a character nobody can see. */
function patientInput(sdk: WardSdk, ctx: Context): PatientInput {
  const input = ctx.request.body as PatientInput;
  const fault = textFault(sdk.text, input);
  if (fault !== null) throw sdk.errors.invalidBody(fault.pointer, fault.message);
  return input;
}

/** The clinic's MRN format, read once; a bad one keeps the routes from mounting, saying why. */
function mrnFormat(sdk: WardSdk, env: NodeJS.ProcessEnv = process.env): MrnFormat {
  const text = env[MRN_FORMAT_VARIABLE] || DEFAULT_MRN_FORMAT;
  const format = parseMrnFormat(text);
  if ('problem' in format)
    throw new sdk.errors.WardError(
      'invalid_setting',
      `${MRN_FORMAT_VARIABLE} ${format.problem}`,
      `set ${MRN_FORMAT_VARIABLE} to text around {seq:<digits>}, such as MRN-{seq:6}, or unset it for ${DEFAULT_MRN_FORMAT}`,
    );
  return format;
}

function confirmsDuplicate(sdk: WardSdk, ctx: Context): boolean {
  const confirm = sdk.http.queryText(ctx, 'confirm');
  if (confirm === undefined) return false;
  if (confirm !== CONFIRM_DUPLICATE)
    throw sdk.errors.invalidQuery('confirm', `must be "${CONFIRM_DUPLICATE}"`);
  return true;
}

const routes: ModuleRoutes = ({ knex, sdk }) => {
  const { http, errors } = sdk;
  const format = mrnFormat(sdk);

  /** 409 `probable_duplicate`, whose answer lists the patients (`duplicates`) it may be. */
  class ProbableDuplicate extends errors.ApiError {
    readonly duplicates: Patient[];

    constructor(duplicates: Patient[]) {
      super(
        409,
        'probable_duplicate',
        `a patient of the same name and birth date is already registered: ${duplicates
          .map((patient) => `patient ${patient.id} (MRN ${JSON.stringify(patient.mrn)})`)
          .join(', ')}`,
        `open the existing patient instead; if this is another person, send the request again with ?confirm=${CONFIRM_DUPLICATE}`,
      );
      this.duplicates = duplicates;
    }

    override toJSON() {
      return { ...super.toJSON(), duplicates: this.duplicates };
    }
  }

  return [
    {
      method: 'GET',
      path: '/patients',
      permission: READ,
      summary:
        'List patients by name; ?q= (name, MRN, birth date or phone, ignoring case, accents and punctuation), ?limit, ?cursor or ?offset',
      handler: async (ctx) => {
        const page = await listPatients(sdk, knex, searchTerms(sdk, ctx), http.pageRequest(ctx, SORT_KEY));
        // The ids shown, not the search words: those can be a name, and names stay out of the trail's text.
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.list',
          kind: 'patient',
          patientIds: page.items.map((patient) => patient.id),
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
      summary:
        'Create a patient (without an mrn, Ward assigns one); a duplicate MRN is 409, a probable duplicate 409 unless ?confirm=duplicate',
      body: CREATE_PATIENT,
      handler: async (ctx) => {
        const input = patientInput(sdk, ctx);
        if (!confirmsDuplicate(sdk, ctx) && typeof input.birthDate === 'string') {
          const duplicates = await probableDuplicates(
            knex,
            input.familyName!,
            input.givenName!,
            input.birthDate,
          );
          if (duplicates.length > 0) {
            // The refusal shows these patients' records: recorded like a list, on its own (the
            // refusal writes nothing to roll back with), one row per patient so that "every access
            // to this patient" finds it.
            await sdk.audit.record(
              sdk.acting(ctx),
              duplicates.map((patient) => ({
                action: 'record.list',
                kind: 'patient',
                recordId: patient.id,
                patientId: patient.id,
                detail: { ids: duplicates.map((duplicate) => duplicate.id), shownAs: 'probable_duplicate' },
              })),
            );
            throw new ProbableDuplicate(duplicates);
          }
        }
        const patient = await createPatient(sdk, sdk.acting(ctx), input, format);
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
