/**
 * The start-up reconcile, in the order the controller contract fixes: take the reconcile lock →
 * core schema to head → bootstrap orphan check → discover disk → plan from pending rows → apply →
 * release. A second replica waits on the lock, then plans again, finds nothing pending, and goes
 * on to serve.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import pg from 'pg';
import { startDb, type StartDb } from '../db/lazy-knex.ts';
import { LOCK_KEYS, withAdvisoryLock, withPooledAdvisoryLock } from '../db/lock.ts';
import { coreAtHead, migrateCore } from '../db/migrate.ts';
import { missingModuleTables, readModuleRows, recordError } from '../db/modules.ts';
import { readReferences } from '../db/references.ts';
import type { Logger } from '../logger.ts';
import type { ApplyReport } from './apply.ts';
import type { StepListener } from './events.ts';
import { assertNoOrphans, assertTablesPresent } from '../planner/bootstrap.ts';
import { discover } from '../manifests/discover.ts';
import { planPending } from '../planner/planner.ts';
import { inactiveMessageChanges } from '../planner/inactive.ts';
import type { Inventory, ModuleRow, Plan } from '../planner/types.ts';

export interface Reconciled extends ApplyReport {
  plan: Plan;
  inventory: Inventory;
  runId: string;
}

/**
 * `listeners`: told of each step the apply runs, after the operation log and the logger (events.ts).
 * The checks are plain queries on `db.sql`; knex is loaded (`db.knex()`) only when there is
 * something to change: the core schema to migrate, a plan to apply, an inactive module to record.
 */
export async function reconcile(
  given: Knex | StartDb,
  url: string,
  config: Config,
  logger: Logger,
  listeners: readonly StepListener[] = [],
): Promise<Reconciled> {
  const start = startDb(given);
  // A backend's start holds the lock on its pool's open connection and checks on that session.
  const locked = (work: (db: StartDb) => Promise<Reconciled>) =>
    start.sql instanceof pg.Pool
      ? withPooledAdvisoryLock(start.sql, url, LOCK_KEYS.reconcile, (session) =>
          work({ ...start, sql: session }),
        )
      : withAdvisoryLock(url, LOCK_KEYS.reconcile, () => work(start));
  return locked(async (db) => {
    // Reading the disk needs nothing from the database: it proceeds while the core schema
    // queries wait on the server. A migration error still comes first, as it did when in order.
    const discovering = discover(config);
    discovering.catch(() => undefined);
    if (!(await coreAtHead(db.sql))) {
      const applied = await migrateCore(await db.knex());
      if (applied.length > 0) logger.info({ applied }, 'core schema migrated');
    }
    // On the locked session, while the disk is still being read.
    const rows = await readModuleRows(db.sql);
    const missingTables = await missingModuleTables(db.sql);
    // Uninstalls are ordered by foreign keys too; nothing else needs them, so no query without one.
    const references = rows.some((row) => row.state === 'to_uninstall') ? await readReferences(db.sql) : [];
    const inventory = await discovering;
    assertNoOrphans(inventory, rows);
    assertTablesPresent(missingTables);
    const pending = planPending(inventory, rows, references);
    const runId = randomUUID();
    const nothingToDo = pending.actions.length === 0 && pending.blocked.length === 0;
    if (!nothingToDo)
      logger.info(
        {
          runId,
          actions: pending.actions.map((action) => `${action.kind} ${action.module}`),
          blocked: pending.blocked.map((blocked) => blocked.module),
        },
        'applying the module plan',
      );
    // The applier and its steps are a sizeable module graph that a start with nothing pending
    // never uses (an empty plan makes no query and no log entry).
    const report: ApplyReport = nothingToDo
      ? { applied: [], failed: [], skipped: [] }
      : await withAdvisoryLock(url, LOCK_KEYS.applying, async () =>
          (await import('./apply.ts')).applyPlan(
            { knex: await db.knex(), inventory, storageDir: config.storageDir, logger, runId, listeners },
            pending,
          ),
        );
    await recordInactive(db, inventory, nothingToDo ? rows : await readModuleRows(db.sql), logger);
    return { ...report, plan: pending, inventory, runId };
  });
}

/**
 * Once the plan is applied: an installed module left without a dependency records why it is
 * inactive, and one whose dependency is back loses that text. Under the reconcile lock, so replicas
 * write it once; a start with nothing to change writes nothing.
 */
async function recordInactive(
  db: StartDb,
  inventory: Inventory,
  rows: readonly ModuleRow[],
  logger: Logger,
): Promise<void> {
  for (const change of inactiveMessageChanges(inventory, rows)) {
    await recordError(await db.knex(), change.module, change.errorMessage);
    if (change.errorMessage === null) logger.info({ module: change.module }, 'module active again');
    else logger.warn({ module: change.module, reason: change.errorMessage }, 'module inactive');
  }
}
