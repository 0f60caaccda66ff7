/**
 * Appointments at /api/v1/appointments/: list (filtered, paginated), read, create, update; and the
 * practitioners they are booked with. Reads need appointments.appointment.read, writes
 * appointments.appointment.write, managing practitioners (create, change, deactivate, delete, link
 * to a staff user) appointments.practitioner.write, and booking over a busy practitioner
 * appointments.appointment.overbook.
 */
import type { ModuleRoutes } from '../../src/sdk/index.ts';
import { CREATE_APPOINTMENT, UPDATE_APPOINTMENT, type AppointmentInput } from './lib/appointment.ts';
import { appointmentFilter } from './lib/filters.ts';
import {
  ALIAS_TABLE,
  CREATE_PRACTITIONER,
  findPractitioner,
  foldName,
  linkableUsers,
  listPractitioners,
  practitionerColumns,
  practitionerOfUser,
  PRACTITIONER_SELECT,
  PRACTITIONER_TABLE,
  presentPractitioner,
  UPDATE_PRACTITIONER,
  type PractitionerInput,
  type PractitionerRow,
} from './lib/practitioners.ts';
import {
  createAppointment,
  TABLE,
  findAppointment,
  listAppointments,
  SORT_KEY,
  updateAppointment,
} from './lib/queries.ts';

const READ = 'appointments.appointment.read';
const WRITE = 'appointments.appointment.write';
const PRACTITIONER_WRITE = 'appointments.practitioner.write';

const ALIAS = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 } },
};

const routes: ModuleRoutes = ({ knex, sdk }) => {
  const { http, errors } = sdk;

  /** The columns of a create or a change; a name of punctuation only is 422. */
  const namedColumns = (input: PractitionerInput) => {
    const columns = practitionerColumns(input);
    if (columns === null) throw errors.invalidBody('/name', 'must contain a letter or a digit');
    return columns;
  };

  /** Runs a practitioner's write, its constraint violations answered as 409 or 422. */
  const writePractitioner = async (
    input: PractitionerInput,
    write: () => Promise<PractitionerRow[]>,
  ): Promise<PractitionerRow> => {
    try {
      return (await write())[0]!;
    } catch (error) {
      switch (sdk.db.constraintError(error)?.constraint) {
        case 'appointments_practitioner_folded_name_unique': {
          const shown = input.name!.trim();
          const same = (await knex(PRACTITIONER_TABLE)
            .where({ folded_name: foldName(shown) })
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
            `user ${input.userId} is already linked to another practitioner`,
            error,
          );
        case 'appointments_practitioner_user_id_foreign':
          throw errors.invalidBody('/userId', `there is no user ${input.userId}`, error);
        default:
          throw error;
      }
    }
  };

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
        const input = ctx.request.body as PractitionerInput;
        const columns = namedColumns(input);
        const row = await writePractitioner(input, () =>
          sdk.acting(ctx).transaction(async (trx, bound) => {
            const rows = (await trx(PRACTITIONER_TABLE)
              .insert(columns)
              .returning(PRACTITIONER_SELECT)) as PractitionerRow[];
            const created = presentPractitioner(rows[0]!);
            await sdk.audit.record(bound, {
              action: 'record.create',
              kind: 'practitioner',
              recordId: created.id,
              detail: { changes: sdk.audit.changes(null, created) },
            });
            return rows;
          }),
        );
        ctx.status = 201;
        ctx.set('Location', `${ctx.path}/${row.id}`);
        ctx.body = presentPractitioner(row);
      },
    },
    {
      method: 'PATCH',
      path: '/practitioners/:id',
      permission: PRACTITIONER_WRITE,
      summary:
        'Change a practitioner: rename, specialty, active (false to deactivate), the linked user (null to unlink)',
      body: UPDATE_PRACTITIONER,
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'practitioner');
        const input = ctx.request.body as PractitionerInput;
        const columns = namedColumns(input);
        const row = await writePractitioner(input, () =>
          sdk.acting(ctx).transaction(async (trx, bound) => {
            // Read under the lock, so the before the trail records is the row this change changes.
            const was = (await trx(PRACTITIONER_TABLE)
              .where({ id })
              .forUpdate()
              .first(PRACTITIONER_SELECT)) as PractitionerRow | undefined;
            if (was === undefined) return [];
            const rows = (await trx(PRACTITIONER_TABLE)
              .where({ id })
              .update(columns)
              .returning(PRACTITIONER_SELECT)) as PractitionerRow[];
            await sdk.audit.record(bound, {
              action: 'record.update',
              kind: 'practitioner',
              recordId: id,
              detail: { changes: sdk.audit.changes(presentPractitioner(was), presentPractitioner(rows[0]!)) },
            });
            return rows;
          }),
        );
        if (row === undefined) throw errors.notFound('practitioner', id);
        ctx.body = presentPractitioner(row);
      },
    },
    {
      method: 'DELETE',
      path: '/practitioners/:id',
      permission: PRACTITIONER_WRITE,
      summary:
        'Delete a practitioner no appointment refers to; one with appointments is 409 practitioner_has_appointments (deactivate it instead)',
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'practitioner');
        await sdk.acting(ctx).transaction(async (trx, bound) => {
          // Locked so that a booking cannot slip in between the count and the delete.
          const row = (await trx(PRACTITIONER_TABLE).where({ id }).forUpdate().first(PRACTITIONER_SELECT)) as
            PractitionerRow | undefined;
          if (row === undefined) throw errors.notFound('practitioner', id);
          const [{ count }] = (await trx(TABLE).where({ practitioner_id: id }).count('* as count')) as [
            { count: string },
          ];
          if (Number(count) > 0)
            throw new errors.ApiError(
              409,
              'practitioner_has_appointments',
              `practitioner ${id} (${row.name}) has ${count} appointment${count === '1' ? '' : 's'}, which keep their practitioner`,
              `deactivate the practitioner instead: PATCH /api/v1/appointments/practitioners/${id} with {"active": false}`,
            );
          await trx(PRACTITIONER_TABLE).where({ id }).delete();
          await sdk.audit.record(bound, {
            action: 'record.delete',
            kind: 'practitioner',
            recordId: id,
            detail: { changes: sdk.audit.changes(presentPractitioner(row), null) },
          });
        });
        ctx.status = 204;
      },
    },
    {
      method: 'POST',
      path: '/practitioners/:id/aliases',
      permission: PRACTITIONER_WRITE,
      summary:
        'Give a practitioner another name, as another system writes it (a CSV provider id): imports naming it book with this practitioner',
      body: ALIAS,
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'practitioner');
        const name = (ctx.request.body as { name: string }).name.trim();
        const folded = foldName(name);
        if (folded === '') throw errors.invalidBody('/name', 'must contain a letter or a digit');
        await sdk.acting(ctx).transaction(async (trx, bound) => {
          const practitioner = await findPractitioner(trx, id);
          if (practitioner === null) throw errors.notFound('practitioner', id);
          const named = (await trx(PRACTITIONER_TABLE).where({ folded_name: folded }).first('id', 'name')) as
            { id: number; name: string } | undefined;
          const aliased = (await trx(ALIAS_TABLE).where({ folded_name: folded }).first('practitioner_id')) as
            { practitioner_id: number } | undefined;
          const taken = (owner: number, cause?: unknown) =>
            new errors.ApiError(
              409,
              'practitioner_name_taken',
              `${JSON.stringify(name)} already names practitioner ${owner}${named ? ` (${named.name})` : ', as an alias'}`,
              'a name books with one practitioner only: choose that practitioner, or rename them first',
              cause === undefined ? undefined : { cause },
            );
          const owner = named?.id ?? aliased?.practitioner_id;
          if (owner !== undefined) throw taken(owner);
          try {
            await trx(ALIAS_TABLE).insert({ folded_name: folded, name, practitioner_id: id });
          } catch (error) {
            // Another request gave the same name at the same moment.
            if (sdk.db.constraintError(error)?.constraint === 'appointments_practitioner_alias_pkey') {
              const winner = (await knex(ALIAS_TABLE)
                .where({ folded_name: folded })
                .first('practitioner_id')) as {
                practitioner_id: number;
              };
              throw taken(winner.practitioner_id, error);
            }
            throw error;
          }
          // An alias is a name the practitioner gains: a change of the practitioner.
          await sdk.audit.record(bound, {
            action: 'record.update',
            kind: 'practitioner',
            recordId: id,
            detail: { changes: { alias: [null, name] } },
          });
        });
        ctx.status = 201;
        ctx.body = { practitionerId: id, name };
      },
    },
    {
      method: 'GET',
      path: '/staff',
      permission: PRACTITIONER_WRITE,
      summary:
        'The staff users a practitioner may be linked to, by username, with the practitioner each is linked to',
      handler: async (ctx) => {
        ctx.body = { items: await linkableUsers(knex), nextCursor: null };
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
          // A list asked of one patient (the chart's part) is about them even when it shows nothing.
          patientId: filter.patientId ?? null,
          patientIds: page.items.map((appointment) => appointment.patientId),
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
