/**
 * Reading the audit trail over HTTP, for holders of `base.audit.read`: `GET /api/v1/audit` answers
 * "every access to this patient" (`?patient=`) and "everything this user did" (`?user=`), with the
 * other filters of `ward audit`, one page at a time by cursor; `?format=ndjson|fhir` streams every
 * matching event instead, as NDJSON lines or FHIR R4 AuditEvent resources (FHIR's bulk NDJSON).
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context } from '../../http/context.ts';
import type { Knex } from 'knex';
import { ndjsonLine, toFhirAuditEvent, type AuditEventJson } from '../../audit/export.ts';
import {
  AuditFilterError,
  decodeCursor,
  MAX_LIMIT,
  parseFilter,
  parseLimit,
  type AuditFilter,
} from '../../audit/query.ts';
import { trailExportEnd, trailExportStart, trailRead } from '../../audit/access.ts';
import { auditEvents, readAuditPage } from '../../audit/read.ts';
import { appendAlone, type AuditEvent } from '../../audit/record.ts';
import { callerBy } from '../../auth/request-caller.ts';
import { USERNAME } from '../../auth/names.ts';
import { findUser } from '../../auth/users.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Logger } from '../../logger.ts';
import { queryText } from '../../sdk/request.ts';
import { API_PREFIX } from '../mount-modules.ts';
import type { ApiRoute, QueryParameter } from '../route.ts';

export const AUDIT_READ = 'base.audit.read';

/** An export's own cap on rows, when it gives `limit`: none by default. */
const MAX_EXPORT_LIMIT = 100_000_000;

const FORMATS = {
  ndjson: { type: 'application/x-ndjson', extension: 'ndjson', line: (event: AuditEventJson) => event },
  fhir: { type: 'application/fhir+ndjson', extension: 'fhir.ndjson', line: toFhirAuditEvent },
} as const;

const PARAMETERS: QueryParameter[] = [
  {
    name: 'patient',
    description: "Every event about this patient's records (the patient's id).",
    schema: { type: 'string' },
  },
  {
    name: 'user',
    description: 'Everything this user did (a username), through any session or token.',
    schema: { type: 'string' },
  },
  {
    name: 'actor',
    description: 'An actor, or the start of one up to a colon: user:7, cli:alice, job:42, system.',
    schema: { type: 'string' },
  },
  {
    name: 'action',
    description: 'An action (record.read) or a family of them (record).',
    schema: { type: 'string' },
  },
  {
    name: 'since',
    description: 'At or after: 2026-11-27 (midnight UTC) or 2026-11-27T09:30:00Z.',
    schema: { type: 'string' },
  },
  { name: 'until', description: 'Before, in the same form as since.', schema: { type: 'string' } },
  { name: 'cursor', description: 'The nextCursor of the page before.', schema: { type: 'string' } },
  {
    name: 'limit',
    description: `Events per page (1 to ${MAX_LIMIT}, default 50); with format, the most to export (default: all).`,
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'format',
    description:
      'Instead of a page, stream every matching event: ndjson (the events) or fhir (FHIR R4 AuditEvent resources, one per line).',
    schema: { type: 'string', enum: Object.keys(FORMATS) },
  },
];

const KNOWN = new Set(PARAMETERS.map((parameter) => parameter.name));

function badQuery(parameter: string, message: string, hint: string): ApiError {
  return new ApiError(400, 'invalid_query', `the query parameter ${parameter} ${message}`, hint);
}

/** An AuditFilterError in the API's words: a 400 naming the query parameter. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof AuditFilterError)
      throw badQuery(error.parameter, error.message.slice(error.parameter.length + 1), error.hint);
    throw error;
  }
}

async function filterOf(ctx: Context, knex: Knex): Promise<AuditFilter> {
  for (const name of Object.keys(ctx.query))
    if (!KNOWN.has(name)) throw badQuery(name, 'is not one this route reads', `use ${[...KNOWN].join(', ')}`);
  const filter = checked(() =>
    parseFilter({
      patient: queryText(ctx, 'patient'),
      actor: queryText(ctx, 'actor'),
      action: queryText(ctx, 'action'),
      since: queryText(ctx, 'since'),
      until: queryText(ctx, 'until'),
    }),
  );
  const username = queryText(ctx, 'user');
  if (username === undefined) return filter;
  const user = USERNAME.test(username) ? await findUser(knex, username) : undefined;
  if (user === undefined)
    throw badQuery(
      'user',
      `names no user: ${JSON.stringify(username)}`,
      'give a username as GET /api/v1/users lists it',
    );
  return { ...filter, userId: user.id };
}

export function auditRoutes(deps: { knex: Knex; logger: Logger }): ApiRoute[] {
  const { knex, logger } = deps;

  const list = async (ctx: Context) => {
    const filter = await filterOf(ctx, knex);
    const format = queryText(ctx, 'format');
    const cursor = queryText(ctx, 'cursor');
    const before = cursor === undefined ? null : checked(() => decodeCursor(cursor));
    const by = callerBy(ctx);
    const record = (event: AuditEvent) =>
      appendAlone(knex, [{ ...event, actor: by.actor, client: by.client }]);
    if (format === undefined) {
      const limit = checked(() => parseLimit('limit', queryText(ctx, 'limit')));
      const page = await readAuditPage(knex, { filter, before, limit });
      // Recorded before it is answered: a page that cannot be recorded is not shown.
      await record(trailRead(filter, { count: page.items.length, cursor: before !== null, via: 'api' }));
      ctx.body = page;
      return;
    }
    if (!Object.hasOwn(FORMATS, format))
      throw badQuery(
        'format',
        `is not a format: ${JSON.stringify(format)}`,
        'use format=ndjson or format=fhir',
      );
    const { type, extension, line } = FORMATS[format as keyof typeof FORMATS];
    const exportFormat = format as keyof typeof FORMATS;
    const text = queryText(ctx, 'limit');
    const max = text === undefined ? null : checked(() => parseLimit('limit', text, MAX_EXPORT_LIMIT));
    const exportId = randomUUID();
    // Recorded before anything is read: an export that cannot be recorded does not start, and one
    // whose process dies part way still has its start on the trail.
    await record(trailExportStart(filter, { exportId, format: exportFormat, limit: max, via: 'api' }));
    const end = (count: number, complete: boolean) =>
      record(trailExportEnd({ exportId, count, complete, via: 'api' }));
    const events = auditEvents(knex, filter, { before, max });
    // The first batch is read before answering, so that a failing database is still an error
    // response rather than a 200 cut short.
    let first: IteratorResult<AuditEventJson>;
    try {
      first = await events.next();
    } catch (error) {
      await end(0, false);
      throw error;
    }
    // The end is recorded once, with how many events went out and whether all did. A complete
    // export records it before its last byte goes, so the reader gets the end of the stream only
    // once it is recorded. Any other end closes the stream: a client hanging up part way (or before
    // the first line, while the first batch was read), a read failing part way.
    let count = 0;
    let ended = false;
    const endOnce = (complete: boolean): Promise<void> => {
      if (ended) return Promise.resolve();
      ended = true;
      return end(count, complete);
    };
    async function* lines() {
      if (first.done !== true) {
        yield ndjsonLine(line(first.value));
        count++;
        for await (const event of events) {
          yield ndjsonLine(line(event));
          count++;
        }
      }
      await endOnce(true);
    }
    const stream = Readable.from(lines());
    stream.once('close', () => {
      endOnce(false).catch((error: unknown) =>
        logger.error({ err: error, exportId }, 'the end of an audit trail export could not be recorded'),
      );
    });
    ctx.attachment(`audit-${new Date().toISOString().slice(0, 10)}.${extension}`);
    ctx.type = type;
    ctx.body = stream;
  };

  return [
    {
      method: 'GET',
      path: '/audit',
      fullPath: `${API_PREFIX}/audit`,
      module: null,
      permission: AUDIT_READ,
      summary:
        'The audit trail, newest first: a page {items, nextCursor}, or with format every matching event streamed as NDJSON',
      query: PARAMETERS,
      handler: list,
    },
  ];
}
