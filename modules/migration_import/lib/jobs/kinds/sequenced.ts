/**
 * Writing the records of a kind whose rows have no natural key (appointments, documents): new ids
 * are drawn from the table's sequence first, so each record knows its row without relying on the
 * order of RETURNING; then one INSERT, one UPDATE and the source map. Patients have a key (the
 * MRN) and are written by patients.ts.
 */
import type { Knex } from 'knex';
import type { RecordKind } from '../../index.ts';
import { upsertMappings } from '../source-map.ts';
import { insertRows, nextIds, updateRows, type TableSpec } from './sql.ts';
import { tally, type KindOutcome, type KindPlan, type Scope } from './types.ts';

export async function writeSequenced<Columns>(
  db: Knex | Knex.Transaction,
  scope: Scope,
  kind: RecordKind,
  spec: TableSpec<Columns>,
  plan: KindPlan<Columns>,
): Promise<KindOutcome> {
  const creates = plan.planned.filter(({ step }) => step.action === 'create');
  const ids = await nextIds(db, spec.table, creates.length);
  const rows = creates.map((planned, index) => ({ id: ids[index]!, columns: planned.columns, planned }));
  await insertRows(db, spec, rows);
  const updates = plan.planned.filter(({ step }) => step.action === 'update');
  await updateRows(
    db,
    spec,
    updates.map(({ step, columns }) => ({ id: Number(step.wardId), columns })),
  );
  await upsertMappings(db, scope, kind, [
    ...rows.map((row) => ({ sourceId: row.planned.step.sourceId, wardId: row.id })),
    ...updates.map(({ step }) => ({ sourceId: step.sourceId, wardId: Number(step.wardId) })),
  ]);
  return { counts: tally(plan, rows.length), failures: plan.failures };
}
