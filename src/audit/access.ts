/**
 * Reading the trail is itself recorded: who looked at whose history is part of the history. A page
 * (`ward audit`, `GET /api/v1/audit`, the chart's Record access panel) is `audit.read`; an export
 * (`--format`, `?format=`) is `audit.export`. Each row holds the filters used and how many events
 * were shown. The row names no patient of its own (`patient_id` stays empty): the chart's panel
 * would otherwise fill with its own reads; the filter is in its detail.
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

/**
 * An export of the trail ended: its filters and format, its cap, how many events it wrote, and
 * whether it wrote them all (false when the reader hung up or a read failed part way).
 */
export function trailExport(
  filter: AuditFilter,
  run: {
    format: 'ndjson' | 'fhir';
    limit: number | null;
    count: number;
    complete: boolean;
    via: TrailReader;
  },
): AuditEvent {
  return {
    action: 'audit.export',
    kind: 'audit_trail',
    outcome: run.complete ? 'ok' : 'failed',
    detail: {
      filters: filtersOf(filter),
      format: run.format,
      ...(run.limit === null ? {} : { limit: run.limit }),
      count: run.count,
      complete: run.complete,
      via: run.via,
    },
  };
}
