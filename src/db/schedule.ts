/**
 * The shell around the planner for the CLI's scheduling commands: under a transaction-scoped
 * advisory lock, read the rows and the foreign keys between module tables, plan, and (unless it
 * is a dry run) write every desired state and its log rows in the same transaction. Nothing here
 * runs a migration, a seed or a hook.
 */
import type { Knex } from 'knex';
import { LOCK_KEYS } from './lock.ts';
import { readModuleRows, readRecordedRequires, recordDesiredState, recordOrphaned } from './modules.ts';
import { readReferences } from './references.ts';
import { decideOrphan } from '../planner/orphan.ts';
import { plan, planPending } from '../planner/planner.ts';
import { refusalToError } from '../planner/refusals.ts';
import type { Inventory, Plan, Request } from '../planner/types.ts';

export interface Scheduled {
  plan: Plan;
  /** The operation-log run id of the writes, or null when nothing was written. */
  runId: string | null;
}

export async function schedule(
  knex: Knex,
  inventory: Inventory,
  request: Exclude<Request, { kind: 'reconcile' }>,
  options: {
    dryRun: boolean;
    /** Runs in the transaction that schedules, after the writes (the audit trail's row). */
    onScheduled?: (trx: Knex.Transaction, plan: Plan) => Promise<void>;
  },
): Promise<Scheduled> {
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [LOCK_KEYS.schedule]);
    // Only an uninstall asks about foreign keys, and only installs and upgrades about ranges.
    const uninstall = request.kind === 'uninstall';
    const [rows, references, recorded] = await Promise.all([
      readModuleRows(trx),
      uninstall ? readReferences(trx) : [],
      uninstall ? new Map() : readRecordedRequires(trx),
    ]);
    const result = plan(inventory, rows, request, references, recorded);
    if (!result.ok) throw refusalToError(result.refusal);
    if (options.dryRun || result.plan.actions.length === 0) return { plan: result.plan, runId: null };
    const runId = await recordDesiredState(trx, result.plan.actions);
    await options.onScheduled?.(trx, result.plan);
    return { plan: result.plan, runId };
  });
}

/** The plan the next restart would apply, read without locking anything. */
export async function pendingPlan(knex: Knex, inventory: Inventory): Promise<Plan> {
  return planPending(inventory, await readModuleRows(knex), await readReferences(knex));
}

export async function orphan(
  knex: Knex,
  inventory: Inventory,
  name: string,
  options: { dryRun: boolean; onOrphaned?: (trx: Knex.Transaction) => Promise<void> },
): Promise<{ changed: boolean; runId: string | null }> {
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [LOCK_KEYS.schedule]);
    const decision = decideOrphan(inventory, await readModuleRows(trx), name);
    if (!decision.change || options.dryRun) return { changed: decision.change, runId: null };
    const runId = await recordOrphaned(trx, name);
    await options.onOrphaned?.(trx);
    return { changed: true, runId };
  });
}
