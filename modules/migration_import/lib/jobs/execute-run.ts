/**
 * Execute, in the background: stream the stored source, and write it a batch at a time. Each
 * batch commits in one transaction together with the job's checkpoint (`rows_done`), its
 * running results and the warnings of rows it could not write, fenced on the worker's lease;
 * so a run that dies resumes exactly after its last committed batch, and a re-run of a finished
 * job updates or skips what earlier runs wrote, through the import mapping, never duplicating.
 * A batch the database refuses (a value Ward's schema rejects) is retried a row at a time, so
 * one bad row fails alone.
 */
import { channel } from 'node:diagnostics_channel';
import type { Acting, Knex, WardSdk } from '../../../../src/sdk/index.ts';
import { inBatches, type ImportRecordItem } from '../index.ts';
import { addResults, writeBatch } from './batch-writer.ts';
import { emptyResults, type JobRow, type JobState, type Results } from './job-row.ts';
import { failure, type Scope } from './kinds/types.ts';
import { endedRun, type Lease } from './lease.ts';
import { readAhead, runScope, sourceRecords } from './records.ts';
import { deleteWarnings, insertWarnings, WarningBudget, WARNINGS } from './warning-store.ts';

export interface ExecuteDeps {
  knex: Knex;
  /** migration_import's SDK: the clinic modules' APIs, the job as who acts. */
  sdk: WardSdk;
  storageDir: string;
  batchSize: number;
  /** Most row errors a run stores (WARD_IMPORT_MAX_WARNINGS); the rest are counted and summed up. */
  maxWarnings?: number;
  /** Who asked for the run (`user:<id>:…`), when known: each batch's audit row names them. */
  by?: string | null;
}

/** What each batch's audit row says besides its counts. */
interface BatchNote {
  sdk: WardSdk;
  by: string | null;
}

/**
 * Each batch an execute run writes, published on a named, process-wide channel (free when nobody
 * subscribes): `{ job, batch, point }`, `batch` counting from 1 in this run, `point` `written`
 * inside the batch's transaction after its writes (nothing of it committed yet) or `committed`
 * just after. The crash tests subscribe from a preloaded file; the module has no test switch.
 */
const batchEvents = channel('ward.migration_import.batch');

/** PostgreSQL refused the values (SQLSTATE class 22, data exception, or 23, integrity constraint). */
const isDataError = (error: unknown): error is Error & { code: string } =>
  typeof (error as { code?: unknown }).code === 'string' && /^2[23]/.test((error as { code: string }).code);

class Checkpoint {
  done: number;
  results: Results;
  readonly budget: WarningBudget;

  constructor(row: JobRow, budget: WarningBudget) {
    this.done = row.rows_done;
    this.results = addResults(emptyResults(), { ...emptyResults(), ...row.results });
    this.budget = budget;
  }
}

/** Commits one batch in a transaction of the job (`scope.acting`), which `write` receives bound to it. */
async function commit(
  note: BatchNote,
  scope: Scope,
  lease: Lease,
  checkpoint: Checkpoint,
  count: number,
  write: (acting: Acting) => Promise<{ results: Results; failures: Parameters<typeof insertWarnings>[3] }>,
  onWritten: () => void = () => undefined,
): Promise<void> {
  // A transaction that rolls back stored none of its warnings: the budget forgets them too.
  const restore = checkpoint.budget.save();
  const next = await scope.acting
    .transaction(async (trx, acting) => {
      const outcome = await write(acting);
      await insertWarnings(trx, lease, 'execute', checkpoint.budget.take(outcome.failures));
      const results = addResults(checkpoint.results, outcome.results);
      await lease.update(trx, { rows_done: checkpoint.done + count, results });
      // What this batch wrote, as the job, with the user who executed: one row per batch, last in
      // its transaction (the trail's appends take turns until commit).
      await note.sdk.audit.record(acting, {
        action: 'import.execute',
        kind: 'import_job',
        recordId: scope.jobId,
        detail: {
          executedBy: note.by,
          rows: [checkpoint.done + 1, checkpoint.done + count],
          wrote: outcome.results,
        },
      });
      onWritten();
      return results;
    })
    .catch((error: unknown) => {
      restore();
      throw error;
    });
  checkpoint.results = next;
  checkpoint.done += count;
}

async function rowByRow(
  note: BatchNote,
  lease: Lease,
  scope: Scope,
  checkpoint: Checkpoint,
  batch: ImportRecordItem[],
) {
  for (const item of batch) {
    try {
      await commit(note, scope, lease, checkpoint, 1, (acting) => writeBatch(acting, scope, [item]));
    } catch (error) {
      if (!isDataError(error)) throw error;
      const results = emptyResults();
      results[item.kind].failed = 1;
      const { detail } = error as { detail?: string };
      const message = `Ward refused the row: ${withoutQuery(error.message)}${detail ? ` (${detail})` : ''}`;
      await commit(note, scope, lease, checkpoint, 1, async () => ({
        results,
        failures: [failure(item, '', 'write_failed', message)],
      }));
    }
  }
}

/** knex prefixes the database's message with the whole query (`<sql> - <message>`): the job's errors keep only the message. */
const withoutQuery = (message: string): string => {
  const at = message.lastIndexOf(' - ');
  return at === -1 ? message : message.slice(at + 3);
};

export function finalState(results: Results): { state: JobState; error: string | null } {
  const totals = Object.values(results);
  const failed = totals.reduce((sum, kind) => sum + kind.failed, 0);
  const written = totals.reduce((sum, kind) => sum + kind.created + kind.updated + kind.skipped, 0);
  if (failed === 0) return { state: 'succeeded', error: null };
  if (written > 0) return { state: 'partially_succeeded', error: null };
  return {
    state: 'failed',
    error: `none of the ${failed} records could be written; the job's errors say why`,
  };
}

export async function executeRun(deps: ExecuteDeps, job: JobRow, lease: Lease): Promise<void> {
  const { knex } = deps;
  const scope = await runScope(deps.sdk, job, 'execute');
  // A fresh run replaces the previous run's row errors; a resumed one keeps its own.
  if (job.rows_done === 0) await deleteWarnings(knex, lease, 'execute');
  const stored = Number(
    (
      (await knex(WARNINGS).where({ job_id: job.id, phase: 'execute' }).count({ n: '*' })) as Array<{
        n: string;
      }>
    )[0]!.n,
  );
  const checkpoint = new Checkpoint(job, new WarningBudget(deps.maxWarnings, stored));
  const note: BatchNote = { sdk: deps.sdk, by: deps.by ?? null };
  const records = sourceRecords(deps.storageDir, job, {
    rules: scope.rules,
    acrossRecords: false,
    skip: checkpoint.done,
  });
  let number = 0;
  for await (const batch of readAhead(inBatches(records, deps.batchSize))) {
    number++;
    try {
      await commit(
        note,
        scope,
        lease,
        checkpoint,
        batch.length,
        (acting) => writeBatch(acting, scope, batch),
        () => batchEvents.publish({ job: job.id, batch: number, point: 'written' }),
      );
    } catch (error) {
      if (!isDataError(error)) throw error;
      await rowByRow(note, lease, scope, checkpoint, batch);
    }
    batchEvents.publish({ job: job.id, batch: number, point: 'committed' });
  }
  const summary = checkpoint.budget.summary();
  if (summary !== null) await insertWarnings(knex, lease, 'execute', [summary]);
  const { state, error } = finalState(checkpoint.results);
  await lease.release(knex, {
    state,
    error,
    finished_at: knex.fn.now(),
    runs: endedRun(knex, state, error),
  });
}
