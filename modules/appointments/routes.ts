/**
 * Appointments at /api/v1/appointments/: list (filtered, paginated), read, create, update; and the
 * practitioners they are booked with. Reads need appointments.appointment.read, writes
 * appointments.appointment.write, creating a practitioner appointments.practitioner.write, and
 * booking over a busy practitioner appointments.appointment.overbook.
 */
import type { ModuleRoutes } from '../../src/sdk/index.ts';
import { CREATE_APPOINTMENT, UPDATE_APPOINTMENT, type AppointmentInput } from './lib/appointment.ts';
import { appointmentFilter } from './lib/filters.ts';
import {
  CREATE_PRACTITIONER,
  findPractitioner,
  foldName,
  listPractitioners,
  practitionerOfUser,
  PRACTITIONER_TABLE,
  presentPractitioner,
  type PractitionerRow,
} from './lib/practitioners.ts';
import {
  createAppointment,
  findAppointment,
  listAppointments,
  SORT_KEY,
  updateAppointment,
} from './lib/queries.ts';

const READ = 'appointments.appointment.read';
const WRITE = 'appointments.appointment.write';
const PRACTITIONER_WRITE = 'appointments.practitioner.write';

const routes: ModuleRoutes = ({ knex, sdk }) => {
  const { http, errors } = sdk;
  return [
    {
      method: 'GET',
      path: '/practitioners',
      permission: READ,
      summary: 'List the practitioners, by name',
      handler: async (ctx) => {
        ctx.body = { items: await listPractitioners(knex), nextCursor: null };
      },
    },
    {
      method: 'GET',
      path: '/practitioners/me',
      permission: READ,
      summary: 'The practitioner the caller signs in as; 404 when the caller is linked to none',
      handler: async (ctx) => {
        const practitioner = await practitionerOfUser(knex, http.caller(ctx).userId);
        if (practitioner === null)
          throw new errors.ApiError(
            404,
            'not_found',
            `user ${http.caller(ctx).username} is no practitioner`,
            'an administrator links a practitioner to a user with POST /api/v1/appointments/practitioners and its userId',
          );
        ctx.body = practitioner;
      },
    },
    {
      method: 'GET',
      path: '/practitioners/:id',
      permission: READ,
      summary: 'Read a practitioner',
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'practitioner');
        const practitioner = await findPractitioner(knex, id);
        if (practitioner === null) throw errors.notFound('practitioner', id);
        ctx.body = practitioner;
      },
    },
    {
      method: 'POST',
      path: '/practitioners',
      permission: PRACTITIONER_WRITE,
      summary: 'Add a practitioner; a name that folds to an existing one is 409, an unknown user 422',
      body: CREATE_PRACTITIONER,
      handler: async (ctx) => {
        const { name, userId = null } = ctx.request.body as { name: string; userId?: number | null };
        const shown = name.trim();
        const folded = foldName(shown);
        if (folded === '') throw errors.invalidBody('/name', 'must contain a letter or a digit');
        try {
          const [row] = (await knex(PRACTITIONER_TABLE)
            .insert({ name: shown, folded_name: folded, user_id: userId })
            .returning(['id', 'name', 'folded_name', 'user_id'])) as PractitionerRow[];
          ctx.status = 201;
          ctx.set('Location', `${ctx.path}/${row!.id}`);
          ctx.body = presentPractitioner(row!);
        } catch (error) {
          switch (sdk.db.constraintError(error)?.constraint) {
            case 'appointments_practitioner_folded_name_unique': {
              const same = (await knex(PRACTITIONER_TABLE)
                .where({ folded_name: folded })
                .first()) as PractitionerRow;
              throw new errors.ApiError(
                409,
                'practitioner_exists',
                `practitioner ${same.id} is already called ${JSON.stringify(same.name)}, the same name as ${JSON.stringify(shown)} but for case, accents or punctuation`,
                'book with that practitioner, or tell two people apart by their names (a first name or initial)',
                { cause: error },
              );
            }
            case 'appointments_practitioner_user_id_unique':
              throw errors.invalidBody(
                '/userId',
                `user ${userId} is already linked to another practitioner`,
                error,
              );
            case 'appointments_practitioner_user_id_foreign':
              throw errors.invalidBody('/userId', `there is no user ${userId}`, error);
            default:
              throw error;
          }
        }
      },
    },
    {
      method: 'GET',
      path: '/appointments',
      permission: READ,
      summary:
        'List appointments by start time; ?patientId, ?practitionerId, ?status, ?from, ?to, ?limit, ?cursor or ?offset',
      handler: async (ctx) => {
        const filter = await appointmentFilter(sdk, ctx, knex);
        const page = await listAppointments(sdk, knex, filter, http.pageRequest(ctx, SORT_KEY));
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.list',
          kind: 'appointment',
          detail: { ids: page.items.map((appointment) => appointment.id) },
        });
        ctx.body = page;
      },
    },
    {
      method: 'GET',
      path: '/appointments/:id',
      permission: READ,
      summary: 'Read an appointment',
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'appointment');
        const appointment = await findAppointment(knex, id);
        if (appointment === null) throw errors.notFound('appointment', id);
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.read',
          kind: 'appointment',
          recordId: id,
          patientId: appointment.patientId,
        });
        ctx.body = appointment;
      },
    },
    {
      method: 'POST',
      path: '/appointments',
      permission: WRITE,
      summary:
        'Book an appointment; a busy practitioner is 409 practitioner_busy (overbook: true to book anyway); an unknown patient, practitioner or status, or an end before the start, is 422',
      body: CREATE_APPOINTMENT,
      handler: async (ctx) => {
        const appointment = await createAppointment(
          sdk,
          sdk.acting(ctx),
          http.caller(ctx),
          ctx.request.body as AppointmentInput,
        );
        ctx.status = 201;
        ctx.set('Location', `${ctx.path}/${appointment.id}`);
        ctx.body = appointment;
      },
    },
    {
      method: 'PATCH',
      path: '/appointments/:id',
      permission: WRITE,
      summary:
        'Change some fields of an appointment: reschedule (busy check as when booking), cancel (with cancellationReason), mark no-show',
      body: UPDATE_APPOINTMENT,
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'appointment');
        const appointment = await updateAppointment(
          sdk,
          sdk.acting(ctx),
          http.caller(ctx),
          id,
          ctx.request.body as AppointmentInput,
        );
        if (appointment === null) throw errors.notFound('appointment', id);
        ctx.body = appointment;
      },
    },
  ];
};

export default routes;
