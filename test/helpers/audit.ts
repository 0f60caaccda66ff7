/**
 * Audit rows written straight into core_audit_event, for tests of the reading side: the hash is
 * any 32 bytes, since these tests read the trail and never verify its chain.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

export interface TestAuditRow {
  at?: Date;
  actor: string;
  user_id?: number | null;
  action: string;
  module?: string | null;
  kind?: string | null;
  record_id?: string | null;
  patient_id?: string | null;
  patient_ids?: string[] | null;
  client?: string | null;
  outcome?: string;
  detail?: unknown;
}

/** Inserts `rows` in order (ids ascending), returning their ids as text. */
export async function insertAuditRows(knex: Knex, rows: readonly TestAuditRow[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = (await knex('core_audit_event')
    .insert(
      rows.map((row) => ({
        ...(row.at === undefined ? {} : { at: row.at }),
        actor: row.actor,
        user_id: row.user_id ?? null,
        action: row.action,
        module: row.module ?? null,
        kind: row.kind ?? null,
        record_id: row.record_id ?? null,
        patient_id: row.patient_id ?? null,
        patient_ids: row.patient_ids ?? null,
        client: row.client ?? null,
        outcome: row.outcome ?? 'ok',
        detail: row.detail === undefined ? null : JSON.stringify(row.detail),
        hash: randomBytes(32),
      })),
    )
    .returning('id')) as Array<{ id: string }>;
  return inserted.map((row) => String(row.id));
}
