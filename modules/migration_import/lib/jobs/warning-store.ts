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

/** Most warnings one phase of a job keeps, unless WARD_IMPORT_MAX_WARNINGS says otherwise. */
export const DEFAULT_MAX_WARNINGS = 10_000;

/**
 * How many warnings a phase of a job keeps: the first `limit`; the rest are counted per severity,
 * never stored, and summed up in one `warnings_capped` warning at the end, so a source of a
 * million bad lines writes a bounded number of rows and still says how many there were.
 */
export class WarningBudget {
  readonly limit: number;
  kept: number;
  readonly omitted: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  #firstRow: number | undefined;

  constructor(limit = DEFAULT_MAX_WARNINGS, kept = 0) {
    this.limit = limit;
    this.kept = kept;
  }

  /** The warnings of `warnings` to store; the others are counted. */
  take<W extends StoredWarning>(warnings: readonly W[]): W[] {
    const room = Math.max(0, this.limit - this.kept);
    for (const warning of warnings.slice(room)) {
      this.omitted[warning.severity]++;
      this.#firstRow ??= warning.row;
    }
    const kept = warnings.slice(0, room);
    this.kept += kept.length;
    return kept;
  }

  /** A function that puts the budget back as it is now (for a transaction that rolled back). */
  save(): () => void {
    const kept = this.kept;
    const omitted = { ...this.omitted };
    const firstRow = this.#firstRow;
    return () => {
      this.kept = kept;
      Object.assign(this.omitted, omitted);
      this.#firstRow = firstRow;
    };
  }

  /** The one warning that says what was not stored, or null when everything was. */
  summary(): StoredWarning | null {
    const { error, warning, info } = this.omitted;
    const total = error + warning + info;
    if (total === 0) return null;
    return {
      row: this.#firstRow!,
      field: '',
      code: 'warnings_capped',
      severity: error > 0 ? 'error' : 'warning',
      message: `${total} more warning${total === 1 ? '' : 's'} (${error} error${error === 1 ? '' : 's'}, ${warning} warning${warning === 1 ? '' : 's'}, ${info} info) from row ${this.#firstRow} on ${total === 1 ? 'was' : 'were'} not recorded: a job keeps at most ${this.limit} (WARD_IMPORT_MAX_WARNINGS); the ones above likely share their cause, fix it and try again`,
    };
  }
}

/** Buffers warnings and writes them a batch at a time, counting them per severity, keeping those its budget allows. */
export class WarningWriter {
  readonly counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  #buffer: StoredWarning[] = [];
  readonly #knex: Knex;
  readonly #lease: Lease;
  readonly #phase: Phase;
  readonly #batch: number;
  readonly #budget: WarningBudget;

  constructor(knex: Knex, lease: Lease, phase: Phase, options: { batch?: number; limit?: number } = {}) {
    this.#knex = knex;
    this.#lease = lease;
    this.#phase = phase;
    this.#batch = options.batch ?? 1000;
    this.#budget = new WarningBudget(options.limit);
  }

  async add(warning: StoredWarning): Promise<void> {
    this.counts[warning.severity]++;
    if (this.#budget.take([warning]).length === 0) return;
    this.#buffer.push(warning);
    if (this.#buffer.length >= this.#batch) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    await insertWarnings(this.#knex, this.#lease, this.#phase, batch);
  }

  /** Writes what is buffered and, when warnings were left out, the summary of them. */
  async finish(): Promise<void> {
    const summary = this.#budget.summary();
    if (summary !== null) this.#buffer.push(summary);
    await this.flush();
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
