/**
 * A job's warnings: written in batches (one INSERT per thousand, fenced on the worker's lease so a
 * worker that lost its job adds nothing), read in pages in source order, optionally one severity.
 */
import type { Knex } from 'knex';
import type { ImportWarning, Severity } from '../index.ts';
import type { KeyKind, Page, PageRequest, WardSdk } from '../../../../src/sdk/index.ts';
import type { Lease } from './lease.ts';
import { LostLease } from './lease.ts';

export const WARNINGS = 'migration_import_warning';

export type Phase = 'validate' | 'execute';

/** A warning as stored: the lib's warnings, and execute's own codes for rows that could not be written. */
export interface StoredWarning extends Omit<ImportWarning, 'code'> {
  code: string;
}

export async function insertWarnings(
  db: Knex | Knex.Transaction,
  lease: Lease,
  phase: Phase,
  warnings: readonly StoredWarning[],
): Promise<void> {
  if (warnings.length === 0) return;
  const result = (await db.raw(
    `insert into ${WARNINGS} (job_id, phase, "row", field, code, severity, message)
     select ?, ?, w.r, w.f, w.c, w.s, w.m
       from unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[]) as w(r, f, c, s, m)
      where exists (select 1 from migration_import_job where id = ? and worker_id = ?)`,
    [
      lease.jobId,
      phase,
      warnings.map((warning) => warning.row),
      warnings.map((warning) => warning.field),
      warnings.map((warning) => warning.code),
      warnings.map((warning) => warning.severity),
      warnings.map((warning) => warning.message),
      lease.jobId,
      lease.workerId,
    ],
  )) as { rowCount: number };
  if (result.rowCount === 0) throw new LostLease(lease.jobId);
}

export async function deleteWarnings(
  db: Knex | Knex.Transaction,
  lease: Lease,
  phase?: Phase,
): Promise<void> {
  await db(WARNINGS)
    .where({ job_id: lease.jobId })
    .modify((query) => {
      if (phase !== undefined) query.where({ phase });
    })
    .whereExists(lease.mine(db).select(db.raw('1')))
    .delete();
}

/** Buffers warnings and writes them a batch at a time, counting them per severity. */
export class WarningWriter {
  readonly counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  #buffer: StoredWarning[] = [];
  readonly #knex: Knex;
  readonly #lease: Lease;
  readonly #phase: Phase;
  readonly #batch: number;

  constructor(knex: Knex, lease: Lease, phase: Phase, batch = 1000) {
    this.#knex = knex;
    this.#lease = lease;
    this.#phase = phase;
    this.#batch = batch;
  }

  async add(warning: StoredWarning): Promise<void> {
    this.counts[warning.severity]++;
    this.#buffer.push(warning);
    if (this.#buffer.length >= this.#batch) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    await insertWarnings(this.#knex, this.#lease, this.#phase, batch);
  }
}

export const WARNING_SORT_KEY: readonly KeyKind[] = ['integer', 'integer'];

export type WarningView = StoredWarning & { phase: Phase };

/** In source order (row, then the order found); `page.after` is the (row, id) of the last one seen. */
export async function listWarnings(
  sdk: WardSdk,
  knex: Knex,
  jobId: number,
  page: PageRequest,
  severity?: Severity,
): Promise<Page<WarningView>> {
  const rows = (await knex(WARNINGS)
    .where({ job_id: jobId })
    .modify((query) => {
      if (severity !== undefined) query.where({ severity });
      if (page.after !== null) query.whereRaw('("row", id) > (?, ?)', page.after);
    })
    .orderBy([{ column: 'row' }, { column: 'id' }])
    .limit(page.limit + 1)
    .offset(page.offset)
    .select('id', 'row', 'field', 'code', 'severity', 'message', 'phase')) as Array<
    WarningView & { id: string }
  >;
  return sdk.http.toPage(
    rows,
    page.limit,
    (row) => [row.row, Number(row.id)],
    (row): WarningView => ({
      row: row.row,
      field: row.field,
      code: row.code,
      severity: row.severity,
      message: row.message,
      phase: row.phase,
    }),
  );
}
