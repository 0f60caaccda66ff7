import { randomUUID } from 'node:crypto';
import { Flags } from '@oclif/core';
import type { Knex } from 'knex';
import { ndjsonLine, toFhirAuditEvent, type AuditEventJson } from '../../../audit/export.ts';
import { AuditFilterError, parseFilter, parseLimit, type AuditFilter } from '../../../audit/query.ts';
import { trailExportEnd, trailExportStart, trailRead, type ExportFormat } from '../../../audit/access.ts';
import { auditEvents, readAuditPage } from '../../../audit/read.ts';
import { appendAlone, type AuditEvent } from '../../../audit/record.ts';
import { USERNAME } from '../../../auth/names.ts';
import { requireUser } from '../../../auth/users.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { WardCommand } from '../../base.ts';
import { table } from '../../render.ts';

/** The most rows a table shows: beyond that, an export (--format) is the way. */
const MAX_TABLE = 10_000;
const MAX_EXPORT = 100_000_000;
const FORMATS = ['ndjson', 'fhir'] as const;
/** What --actor takes as an actor rather than a username. */
const ACTOR_FORM = /^(system|anonymous|[a-z]+:.+)$/;

export interface AuditList {
  events: AuditEventJson[];
  /** Whether older events match too (beyond --limit). */
  more: boolean;
}

export default class Audit extends WardCommand {
  static override description =
    'Read the audit trail: who read or changed which record, newest first. --patient answers "every access to this patient", --actor "everything this user did"';
  static override examples = [
    '<%= config.bin %> audit --patient 42',
    '<%= config.bin %> audit --actor alice --since 2026-11-01',
    '<%= config.bin %> audit --actor cli:root --action module --json',
    '<%= config.bin %> audit --patient 42 --format fhir > patient-42-audit.ndjson',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    patient: Flags.string({ description: "only events about this patient's records (the patient's id)" }),
    actor: Flags.string({
      description:
        'only this actor: a username (everything the user did, through any session or token), or an actor such as cli:alice, job:42, system, user:7',
    }),
    action: Flags.string({ description: 'only this action (record.read) or family of actions (record)' }),
    since: Flags.string({ description: 'at or after: 2026-11-27 (midnight UTC) or 2026-11-27T09:30:00Z' }),
    until: Flags.string({ description: 'before, in the same form as --since' }),
    limit: Flags.string({
      description: `the newest N events (table: default 50, at most ${MAX_TABLE}; export: default all)`,
    }),
    format: Flags.string({
      description:
        'stream every matching event to stdout instead: ndjson (the events) or fhir (FHIR R4 AuditEvents, one per line)',
    }),
  };

  async run(): Promise<AuditList | undefined> {
    const { flags } = await this.parse(Audit);
    const { filter, actorUser } = flagged(() => {
      const user = flags.actor !== undefined && !ACTOR_FORM.test(flags.actor) ? flags.actor : undefined;
      if (user !== undefined && !USERNAME.test(user))
        throw new AuditFilterError(
          'actor',
          `is neither a username nor an actor: ${JSON.stringify(user)}`,
          'give a username (alice) or an actor such as cli:alice, job:42, system or user:7',
        );
      return {
        actorUser: user,
        filter: parseFilter({
          patient: flags.patient,
          actor: user === undefined ? flags.actor : undefined,
          action: flags.action,
          since: flags.since,
          until: flags.until,
        }),
      };
    });
    const format = flags.format;
    if (format !== undefined && !(FORMATS as readonly string[]).includes(format))
      throw new WardError(
        'bad_usage',
        `--format ${JSON.stringify(format)} is not an export format`,
        'use --format ndjson or --format fhir, or leave it out for a table',
        { exitCode: 2 },
      );
    if (format !== undefined && this.jsonEnabled())
      throw new WardError(
        'bad_usage',
        '--format and --json both choose the output',
        'use --json for a list of the newest events, --format for an export of all of them',
        { exitCode: 2 },
      );
    const limit = flagged(() =>
      parseLimit('limit', flags.limit, format === undefined ? MAX_TABLE : MAX_EXPORT),
    );
    const knex = await this.db();
    const withUser = await withActorUser(knex, filter, actorUser);
    if (format !== undefined) {
      await this.export(knex, withUser, format as ExportFormat, flags.limit === undefined ? null : limit);
      return undefined;
    }
    const page = await readAuditPage(knex, { filter: withUser, before: null, limit });
    // Recorded before it is printed: reading the trail is itself recorded.
    await this.record(knex, trailRead(withUser, { count: page.items.length, cursor: false, via: 'cli' }));
    const list = { events: page.items, more: page.nextCursor !== null };
    this.log(renderAudit(list, limit));
    return list;
  }

  private record(knex: Knex, event: AuditEvent): Promise<void> {
    return appendAlone(knex, [{ ...event, actor: this.by.actor, client: this.by.client }]);
  }

  /**
   * Recorded before it reads anything (an export that cannot be recorded does not start; one
   * killed part way leaves its start) and when it ends, with how many events it wrote and whether
   * it wrote them all.
   */
  private async export(
    knex: Knex,
    filter: AuditFilter,
    format: ExportFormat,
    max: number | null,
  ): Promise<void> {
    const exportId = randomUUID();
    await this.record(knex, trailExportStart(filter, { exportId, format, limit: max, via: 'cli' }));
    let count = 0;
    let complete = false;
    try {
      for await (const event of auditEvents(knex, filter, { max })) {
        const line = ndjsonLine(format === 'fhir' ? toFhirAuditEvent(event) : event);
        if (!process.stdout.write(line))
          await new Promise((resolve) => process.stdout.once('drain', resolve));
        count++;
      }
      complete = true;
    } finally {
      await this.record(knex, trailExportEnd({ exportId, count, complete, via: 'cli' }));
    }
  }
}

/** A bad flag in the CLI's words: `--since is not …`, exit 2. */
function flagged<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof AuditFilterError)
      throw new WardError(error.code, `--${error.message}`, error.hint, { exitCode: 2 });
    throw error;
  }
}

async function withActorUser(
  knex: Knex,
  filter: AuditFilter,
  username: string | undefined,
): Promise<AuditFilter> {
  if (username === undefined) return filter;
  return { ...filter, userId: (await requireUser(knex, username)).id };
}

const what = (event: AuditEventJson): string =>
  event.kind === null
    ? (event.module ?? '-')
    : `${event.module === null ? '' : `${event.module}/`}${event.kind}${event.recordId === null ? '' : ` ${event.recordId}`}`;

export function renderAudit(list: AuditList, limit: number): string {
  if (list.events.length === 0) return 'No audit events match.';
  const rows = table(
    ['ID', 'TIME', 'ACTOR', 'ACTION', 'OUTCOME', 'RECORD', 'PATIENT', 'CLIENT'],
    list.events.map((event) => [
      event.id,
      event.at,
      event.username === null ? event.actor : `${event.username} (${event.actor})`,
      event.action,
      event.outcome,
      what(event),
      event.patientId ?? (event.patientIds === null ? '-' : `${event.patientIds.length} listed`),
      event.client ?? '-',
    ]),
  );
  return list.more
    ? `${rows}\nThe newest ${limit} shown; older events match too: narrow with --until, raise --limit, or export with --format.`
    : rows;
}
