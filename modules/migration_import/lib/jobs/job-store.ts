/** Reads of jobs, and the atomic state changes that start a background run on one. */
import type { Knex } from 'knex';
import type { ImportFormat } from '../index.ts';
import type { Page, PageRequest, WardSdk } from '../../../../src/sdk/index.ts';
import { jobView, type JobRow, type JobState, type JobView } from './job-row.ts';
import { LAPSED, TABLE, leaseUntil } from './lease.ts';

export async function getJob(db: Knex | Knex.Transaction, id: number): Promise<JobRow | undefined> {
  return (await db(TABLE).where({ id }).first()) as JobRow | undefined;
}

/** Newest first; `page.after` is the id of the last job already seen. */
export async function listJobs(
  sdk: WardSdk,
  knex: Knex,
  page: PageRequest,
  state?: JobState,
): Promise<Page<JobView>> {
  const rows = (await knex(TABLE)
    .modify((query) => {
      if (state !== undefined) query.where({ state });
      if (page.after !== null) query.where('id', '<', page.after[0]!);
    })
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .offset(page.offset)) as JobRow[];
  return sdk.http.toPage(rows, page.limit, (row) => [row.id], jobView);
}

export interface NewJob {
  sourceSystem: string;
  format: ImportFormat;
  sourceBytes: number;
  sourceSha256: string;
  createdById: number;
  createdBy: string;
}

export async function insertJob(trx: Knex.Transaction, job: NewJob): Promise<JobRow> {
  const [row] = (await trx(TABLE)
    .insert({
      source_system: job.sourceSystem,
      format: job.format,
      source_bytes: job.sourceBytes,
      source_sha256: job.sourceSha256,
      created_by_id: job.createdById,
      created_by: job.createdBy,
    })
    .returning('*')) as JobRow[];
  return row!;
}

export interface Claim {
  /** Who runs it; null for a run that is queued, which no worker has started yet. */
  workerId: string | null;
  leaseMs: number;
}

/** States from which validation may (re)start; a `validating` job whose worker died restarts too. */
export const VALIDATE_FROM: readonly JobState[] = ['created', 'validated', 'invalid'];
/** States from which execute starts a fresh run; a re-run of an executed job updates, never duplicates. */
export const EXECUTE_FROM: readonly JobState[] = ['validated', 'succeeded', 'partially_succeeded', 'failed'];

/** Validation restarts from the top whether fresh or taken over: it only writes warnings, which it replaces. */
export async function claimValidate(knex: Knex, id: number, claim: Claim): Promise<JobRow | undefined> {
  const [row] = (await knex(TABLE)
    .where({ id })
    .whereNull('purged_at')
    .andWhere((where) =>
      where
        .whereIn('state', VALIDATE_FROM)
        .orWhere((stale) => stale.where({ state: 'validating' }).whereRaw(LAPSED)),
    )
    .update({
      state: 'validating',
      worker_id: claim.workerId,
      lease_expires_at: leaseUntil(knex, claim.leaseMs),
      counts: {},
      rows_total: 0,
      rows_done: 0,
      error: null,
      validated_at: null,
      updated_at: knex.fn.now(),
    })
    .returning('*')) as JobRow[];
  return row;
}

/**
 * A job left `executing` by a dead worker resumes where its last committed batch ended
 * (`rows_done`); any other executable job starts a fresh run from the first row.
 */
export async function claimExecute(
  knex: Knex,
  id: number,
  claim: Claim,
): Promise<{ row: JobRow; resumed: boolean } | undefined> {
  const lease = { worker_id: claim.workerId, lease_expires_at: leaseUntil(knex, claim.leaseMs) };
  const [resumed] = (await knex(TABLE)
    .where({ id, state: 'executing' })
    .whereRaw(LAPSED)
    .update({ ...lease, updated_at: knex.fn.now() })
    .returning('*')) as JobRow[];
  if (resumed !== undefined) return { row: resumed, resumed: true };
  const [fresh] = (await knex(TABLE)
    .where({ id })
    .whereNull('purged_at')
    .whereIn('state', EXECUTE_FROM)
    .update({
      ...lease,
      state: 'executing',
      rows_done: 0,
      results: {},
      error: null,
      started_at: knex.fn.now(),
      finished_at: null,
      updated_at: knex.fn.now(),
    })
    .returning('*')) as JobRow[];
  return fresh === undefined ? undefined : { row: fresh, resumed: false };
}

/** Jobs whose background run has no live worker: what the sweeper takes over. */
export async function orphanedRuns(knex: Knex): Promise<Array<Pick<JobRow, 'id' | 'state'>>> {
  return (await knex(TABLE)
    .whereIn('state', ['validating', 'executing'])
    .whereRaw(LAPSED)
    .orderBy('id')
    .select('id', 'state')) as Array<Pick<JobRow, 'id' | 'state'>>;
}

/**
 * The run's job starting on a worker: takes the row of a run that is queued (claimed by a request,
 * `worker_id` null, started by no backend yet) or whose worker's lease lapsed; `from` is who held
 * it before, null for a fresh start. `ended` when the job is not running (it ended, or was
 * purged); `held` while another worker's lease on it is live.
 */
export async function takeRun(
  knex: Knex,
  id: number,
  claim: Claim,
): Promise<{ row: JobRow; from: string | null } | 'ended' | 'held'> {
  return knex.transaction(async (trx) => {
    const held = (await trx(TABLE)
      .where({ id })
      .whereIn('state', ['validating', 'executing'])
      .forUpdate()
      .first()
      .select('*', trx.raw(`${LAPSED} as lapsed`))) as (JobRow & { lapsed: boolean }) | undefined;
    if (held === undefined) return 'ended';
    if (held.worker_id !== null && !held.lapsed) return 'held';
    const [row] = (await trx(TABLE)
      .where({ id })
      .update({
        worker_id: claim.workerId,
        lease_expires_at: leaseUntil(trx, claim.leaseMs),
        updated_at: trx.fn.now(),
      })
      .returning('*')) as JobRow[];
    return { row: row!, from: held.worker_id };
  });
}
