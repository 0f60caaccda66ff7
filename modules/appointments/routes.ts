/**
 * Appointments at /api/v1/appointments/: list (filtered, paginated), read, create, update. Reads
 * need appointments.appointment.read, writes appointments.appointment.write.
 */
import type { ModuleRoutes } from '../../src/sdk/index.ts';
import { CREATE_APPOINTMENT, UPDATE_APPOINTMENT, type AppointmentInput } from './lib/appointment.ts';
import { appointmentFilter } from './lib/filters.ts';
import {
  createAppointment,
  findAppointment,
  listAppointments,
  SORT_KEY,
  updateAppointment,
} from './lib/queries.ts';

const READ = 'appointments.appointment.read';
const WRITE = 'appointments.appointment.write';

const routes: ModuleRoutes = ({ knex, sdk }) => {
  const { http, errors } = sdk;
  return [
    {
      method: 'GET',
      path: '/appointments',
      permission: READ,
      summary: 'List appointments by start time; ?patientId, ?status, ?from, ?to, ?limit, ?cursor or ?offset',
      handler: async (ctx) => {
        const filter = await appointmentFilter(sdk, ctx, knex);
        ctx.body = await listAppointments(sdk, knex, filter, http.pageRequest(ctx, SORT_KEY));
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
        ctx.body = appointment;
      },
    },
    {
      method: 'POST',
      path: '/appointments',
      permission: WRITE,
      summary: 'Book an appointment; an unknown patient or status, or an end before the start, is 422',
      body: CREATE_APPOINTMENT,
      handler: async (ctx) => {
        const appointment = await createAppointment(
          sdk,
          sdk.acting(ctx),
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
      summary: 'Change some fields of an appointment (reschedule, set its status)',
      body: UPDATE_APPOINTMENT,
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'appointment');
        const appointment = await updateAppointment(
          sdk,
          sdk.acting(ctx),
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
