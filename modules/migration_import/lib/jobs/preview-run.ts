/**
 * Preview: what execute would do now, computed the same way and written nowhere. It reads the
 * whole source (so its counts are exact) in the memory of one batch plus the validator's ids,
 * and keeps only the first steps of each action with their before and after, and the first rows
 * that could not be written, with why.
 */
import type { Knex, WardSdk } from '../../../../src/sdk/index.ts';
import type { PractitionerPlan } from '../../../appointments/api.ts';
import { PreviewBuilder, inBatches, type Preview, type Values } from '../index.ts';
import { PractitionerTally } from '../practitioner-tally.ts';
import { planBatch } from './batch-writer.ts';
import type { JobRow } from './job-row.ts';
import { runScope, sourceRecords } from './records.ts';
import { knownPatients } from './source-map.ts';
import type { StoredWarning } from './warning-store.ts';

export interface PreviewResult extends Preview {
  /** Records execute could not write now (a binary not uploaded, a status Ward does not know). */
  failures: { count: number; samples: StoredWarning[] };
  /**
   * The practitioners the appointments execute would write book with: existing ones their names
   * match (case, accents and punctuation aside), and those it would create; `untracked`
   * appointments name practitioners past the first thousand names, not listed.
   */
  practitioners: PractitionerPlan & { untracked: number };
}

export async function previewJob(
  deps: { knex: Knex; sdk: WardSdk; storageDir: string; batchSize: number },
  job: JobRow,
  sampleSize: number,
): Promise<PreviewResult> {
  const { knex } = deps;
  // Nothing is written, so the MRNs of patients earlier batches would create are remembered here.
  const scope = { ...(await runScope(deps.sdk, job, 'preview')), plannedMrns: new Set<string>() };
  const builder = new PreviewBuilder(sampleSize);
  const tally = new PractitionerTally();
  const failures = { count: 0, samples: [] as StoredWarning[] };
  const records = sourceRecords(deps.storageDir, job, {
    rules: scope.rules,
    knownPatient: knownPatients(knex, job.source_system),
  });
  for await (const batch of inBatches(records, deps.batchSize)) {
    const { steps, failures: failed } = await planBatch(scope.acting, scope, batch);
    for (const step of steps) {
      builder.add(step);
      if (step.kind === 'appointment' && step.action !== 'skip')
        tally.add((step.after as Values<'appointment'>).practitionerName);
    }
    failures.count += failed.length;
    failures.samples.push(...failed.slice(0, sampleSize - failures.samples.length));
  }
  const practitioners = await scope.peers.appointments.planPractitioners(scope.acting, tally.names());
  return { ...builder.result(), failures, practitioners: { ...practitioners, untracked: tally.untracked } };
}
