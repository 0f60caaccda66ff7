/**
 * Writing the records of a kind whose rows have no natural key (appointments, documents) through
 * their module's batch API, which draws new ids from its table's sequence so each record knows its
 * row; then the source map. Patients have a key (the MRN) and are written by patients.ts.
 */
import type { Acting } from '../../../../../src/sdk/index.ts';
import type { RecordKind } from '../../index.ts';
import { upsertMappings } from '../source-map.ts';
import { tally, type KindOutcome, type KindPlan, type Scope } from './types.ts';

export async function writeSequenced<Columns>(
  acting: Acting,
  scope: Scope,
  kind: RecordKind,
  plan: KindPlan<Columns>,
  upsertMany: (acting: Acting, rows: Array<Columns & { id?: number }>) => Promise<number[]>,
): Promise<KindOutcome> {
  const written = plan.planned.filter(({ step }) => step.action === 'create' || step.action === 'update');
  const ids = await upsertMany(
    acting,
    written.map(({ step, columns }): Columns & { id?: number } =>
      step.action === 'update' ? { ...columns, id: Number(step.wardId) } : { ...columns, id: undefined },
    ),
  );
  await upsertMappings(
    acting.knex,
    scope,
    kind,
    written.map(({ step }, index) => ({ sourceId: step.sourceId, wardId: ids[index]! })),
  );
  const created = written.filter(({ step }) => step.action === 'create').length;
  return { counts: tally(plan, created), failures: plan.failures };
}
