/**
 * Purge: delete what a job holds of the clinic's raw export — its source file, its binaries and
 * its warnings (which quote source values) — and keep the job row, marked `purged_at`/`purged_by`,
 * with its counts and run history, so an auditor can see what was imported and when the raw data
 * went. A running job is not purged (its worker reads the source); a purged job cannot be
 * validated, executed, previewed or sent binaries again. The marking and the row deletions commit
 * together first, so a run can never start on a job whose files are going; then the files go.
 * A binary's bytes stay while a Ward document or another job's binary has the same content.
 */
import { rm } from 'node:fs/promises';
import type { Acting, Knex, Logger, WardSdk } from '../../../../src/sdk/index.ts';
import { BINARIES } from './binary-store.ts';
import type { JobRow } from './job-row.ts';
import { TABLE } from './lease.ts';
import { peers } from './peers.ts';
import { sourcePath } from './source-file.ts';
import { WARNINGS } from './warning-store.ts';

export interface PurgeDeps {
  /** Who purges: the purge's writes are theirs. */
  acting: Acting;
  /** migration_import's SDK: the documents module's file store. */
  sdk: WardSdk;
  storageDir: string;
  logger: Logger;
}

export interface Purged {
  row: JobRow;
  /** False when the job had been purged already: nothing was done. */
  purged: boolean;
  warnings: number;
  binaries: number;
}

/** States in which a worker may be reading the job's source. */
const RUNNING = ['validating', 'executing'];

/**
 * Purges job `id` on behalf of `by`; with `olderThanDays`, only if it is still unchanged for that
 * long when the purge takes it (retention). Undefined when there is no such job, it is running, or
 * it changed since (the caller tells which); an already purged job is returned as it is, its source
 * file removed again in case a purge stopped between its commit and the file's removal.
 */
export async function purgeJob(
  deps: PurgeDeps,
  id: number,
  by: string,
  olderThanDays?: number,
): Promise<Purged | undefined> {
  const knex = deps.acting.knex;
  const done = await deps.acting.transaction(async (trx, acting) => {
    const unchanged = (query: Knex.QueryBuilder) =>
      olderThanDays === undefined
        ? query
        : query.whereRaw(`updated_at < now() - ? * interval '1 day'`, [olderThanDays]);
    const [row] = (await unchanged(
      trx(TABLE).where({ id }).whereNull('purged_at').whereNotIn('state', RUNNING),
    )
      .update({ purged_at: trx.fn.now(), purged_by: by, updated_at: trx.fn.now() })
      .returning('*')) as JobRow[];
    if (row === undefined) return undefined;
    const warnings = await trx(WARNINGS).where({ job_id: id }).delete();
    const binaries = (await trx(BINARIES).where({ job_id: id }).delete().returning('sha256')) as Array<{
      sha256: string;
    }>;
    const hashes = [...new Set(binaries.map((binary) => binary.sha256))];
    await deps.sdk.audit.record(acting, {
      action: 'import.purge',
      kind: 'import_job',
      recordId: id,
      detail: { by, warnings, binaries: hashes.length, olderThanDays: olderThanDays ?? null },
    });
    return { row, warnings, hashes };
  });
  if (done === undefined) {
    const row = (await knex(TABLE).where({ id }).first()) as JobRow | undefined;
    if (row?.purged_at == null) return undefined;
    await rm(sourcePath(deps.storageDir, id), { force: true });
    return { row, purged: false, warnings: 0, binaries: 0 };
  }
  await rm(sourcePath(deps.storageDir, id), { force: true });
  for (const sha256 of done.hashes) await removeUnreferencedBlob(deps, sha256);
  deps.logger.info(
    {
      job: id,
      by,
      warnings: done.warnings,
      binaries: done.hashes.length,
      sourceBytes: Number(done.row.source_bytes),
    },
    `migration_import: purged job ${id}: its source, binaries and warnings are deleted`,
  );
  return { row: done.row, purged: true, warnings: done.warnings, binaries: done.hashes.length };
}

/** Removes the stored file unless a document or a binary uses it, under the file's lock (the documents API's). */
export async function removeUnreferencedBlob(deps: PurgeDeps, sha256: string): Promise<void> {
  await peers(deps.sdk).documents.releaseFile(
    deps.acting,
    sha256,
    async (trx) => (await trx(BINARIES).where({ sha256 }).first('id')) !== undefined,
  );
}

/**
 * Retention: purges every job not running whose last change is older than `days` (0: none), as
 * `retention`. Run by the background sweeper; across replicas a job is purged once (the purge's
 * update is conditional), and a job another replica purged first is simply skipped.
 */
export async function purgeExpired(deps: PurgeDeps, days: number): Promise<number[]> {
  if (days <= 0) return [];
  const expired = (await deps.acting
    .knex(TABLE)
    .whereNull('purged_at')
    .whereNotIn('state', RUNNING)
    .whereRaw(`updated_at < now() - ? * interval '1 day'`, [days])
    .orderBy('id')
    .limit(100)
    .pluck('id')) as number[];
  const purged: number[] = [];
  for (const id of expired)
    if ((await purgeJob(deps, id, 'retention', days))?.purged === true) purged.push(id);
  return purged;
}
