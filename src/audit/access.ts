/**
 * Reading the trail is itself recorded: who looked at whose history is part of the history. A page
 * (`ward audit`, `GET /api/v1/audit`, the chart's Record access panel) is `audit.read`, with the
 * filters used and how many events were shown. An export (`--format`, `?format=`) is two rows
 * sharing the export's id as their record id: `audit.export` before it starts (who, which filters,
 * which format) and `audit.export_end` when it ends (how many events, whether all). These rows name
 * no patient of their own (`patient_id` stays empty): the chart's panel would otherwise fill with
 * its own reads; the filter is in their detail.
 */
import type { AuditEvent } from './record.ts';
import type { AuditFilter } from './query.ts';

/** Where the trail was read. */
export type TrailReader = 'cli' | 'api';

/** The filters as they are recorded: only those given, dates as ISO text. */
export function filtersOf(filter: AuditFilter): Record<string, string | number> {
  const entries: Array<[string, string | number | undefined]> = [
    ['patient', filter.patientId],
    ['userId', filter.userId],
    ['actor', filter.actor],
    ['action', filter.action],
    ['since', filter.since?.toISOString()],
    ['until', filter.until?.toISOString()],
  ];
  return Object.fromEntries(
    entries.filter((entry): entry is [string, string | number] => entry[1] !== undefined),
  );
}

/** A page of the trail was shown: its filters, whether it followed a cursor, how many events. */
export function trailRead(
  filter: AuditFilter,
  page: { count: number; cursor: boolean; via: TrailReader },
): AuditEvent {
  return {
    action: 'audit.read',
    kind: 'audit_trail',
    detail: {
      filters: filtersOf(filter),
      count: page.count,
      ...(page.cursor ? { cursor: true } : {}),
      via: page.via,
    },
  };
}

/** An export's format. */
export type ExportFormat = 'ndjson' | 'fhir';

/**
 * An export of the trail is starting: who (the row's actor), its filters, format and cap. It is
 * recorded before the first event is read, and the export does not start unless it is: a run
 * killed part way still leaves this row. `exportId` names the run; its end row carries the same.
 */
export function trailExportStart(
  filter: AuditFilter,
  run: { exportId: string; format: ExportFormat; limit: number | null; via: TrailReader },
): AuditEvent {
  return {
    action: 'audit.export',
    kind: 'audit_trail',
    recordId: run.exportId,
    detail: {
      filters: filtersOf(filter),
      format: run.format,
      ...(run.limit === null ? {} : { limit: run.limit }),
      via: run.via,
    },
  };
}

/**
 * The export `exportId` ended: how many events it wrote, and whether it wrote them all (false,
 * outcome `failed`, when the reader hung up or a read failed part way). A start without its end
 * is an export whose process died.
 */
export function trailExportEnd(run: {
  exportId: string;
  count: number;
  complete: boolean;
  via: TrailReader;
}): AuditEvent {
  return {
    action: 'audit.export_end',
    kind: 'audit_trail',
    recordId: run.exportId,
    outcome: run.complete ? 'ok' : 'failed',
    detail: { count: run.count, complete: run.complete, via: run.via },
  };
}
