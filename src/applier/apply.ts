/**
 * The applier: runs a restart-time plan step by step, in the plan's order, and tells
 * its listeners of each step as it goes (events.ts): the operation log records `started`, then
 * `done` inside the step's own transaction, or `failed` with the error. A module whose step fails
 * keeps its pending state and the error in `core_module.error_message`; modules that need it are
 * skipped with an error naming it; every other module proceeds. The caller holds the reconcile lock.
 */
import { appendAlone } from '../audit/record.ts';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { readAttemptLog, recordBlocked, recordError } from '../db/modules.ts';
import type { Logger } from '../logger.ts';
import { observed, type StepEvent, type StepListener } from './events.ts';
import { operationLog, stepLogger } from './listeners.ts';
import { refusalToError } from '../planner/refusals.ts';
import { doneSteps } from '../planner/resume.ts';
import { actingTransaction, SYSTEM_ACTOR } from '../db/acting.ts';
import { ModuleApis } from '../sdk/module-apis.ts';
import { NON_TRANSACTIONAL, runStep, type StepEnv } from './steps/run.ts';
import {
  STEPS,
  type DiskModule,
  type Action,
  type Inventory,
  type LogRow,
  type Plan,
  type StepName,
} from '../planner/types.ts';

export interface ApplyEnv {
  knex: Knex;
  inventory: Inventory;
  storageDir: string;
  logger: Logger;
  runId: string;
  /** Called after the operation log and the logger, before the process-wide listeners. */
  listeners?: readonly StepListener[];
}

export interface ApplyReport {
  applied: Array<{ module: string; kind: Action['kind'] }>;
  failed: Array<{ module: string; step: StepName; error: string }>;
  skipped: Array<{ module: string; because: string }>;
}

type Emit = (event: StepEvent) => Promise<void>;

export async function applyPlan(env: ApplyEnv, plan: Plan): Promise<ApplyReport> {
  const report: ApplyReport = { applied: [], failed: [], skipped: [] };
  const emit = emitter(env);
  const unavailable = new Set<string>();
  for (const { module, refusal } of plan.blocked) {
    const error = refusalToError(refusal);
    unavailable.add(module);
    report.skipped.push({ module, because: error.message });
    const operation = await recordBlocked(env.knex, module, `not applied: ${error.message}`);
    if (operation !== null)
      await emit({
        type: 'blocked',
        runId: env.runId,
        module,
        operation,
        code: error.code,
        message: error.message,
      });
  }
  const log = await readAttemptLog(
    env.knex,
    plan.actions.map((action) => action.module),
  );
  let stepNumber = 0;
  // Hooks reach the APIs of the modules they depend on, loaded once for the whole plan.
  const apis = new ModuleApis({
    modules: env.inventory.modules,
    knex: env.knex,
    storageDir: env.storageDir,
    logger: env.logger,
  });
  for (const action of plan.actions) {
    const blocker = blockerOf(env.inventory, plan, action, unavailable);
    if (blocker !== null) {
      unavailable.add(action.module);
      const because = `${blocker} failed or was skipped in the same restart`;
      report.skipped.push({ module: action.module, because });
      const message = `skipped: ${because}`;
      await recordError(env.knex, action.module, message);
      await emit({
        type: 'skipped',
        runId: env.runId,
        module: action.module,
        operation: action.kind,
        message,
      });
      continue;
    }
    const later = laterUninstalls(env.inventory, plan, action);
    const result = await applyAction(env, apis, emit, action, later, log, () => ++stepNumber);
    if (result === null) report.applied.push({ module: action.module, kind: action.kind });
    else {
      unavailable.add(action.module);
      report.failed.push({ module: action.module, ...result });
    }
  }
  if (plan.actions.length > 0 || plan.blocked.length > 0)
    await appendAlone(env.knex, [
      {
        actor: SYSTEM_ACTOR,
        action: 'module.restart',
        kind: 'module',
        detail: {
          plan: plan.actions.map(({ kind, module }) => ({ kind, module })),
          applied: report.applied,
          failed: report.failed.map(({ module }) => module),
          blocked: plan.blocked.map(({ module }) => module),
        },
      },
    ]);
  return report;
}

/**
 * Tells every listener of an event, in order (events.ts): the operation log's throw, and at
 * `completed` any listener's, is the caller's; elsewhere the other listeners are best-effort.
 */
function emitter(env: ApplyEnv): Emit {
  const record = operationLog(env.knex);
  const others = [stepLogger(env.logger), ...(env.listeners ?? []), ...observed()];
  return async (event) => {
    await record(event);
    for (const listener of others) {
      if (event.type === 'completed') {
        await listener(event);
        continue;
      }
      try {
        await listener(event);
      } catch (error) {
        env.logger.warn(
          { err: error, event: event.type, module: event.module },
          `a step listener failed at ${event.type}; ignored`,
        );
      }
    }
  };
}

/**
 * Installs and upgrades wait for their dependencies; an uninstall waits for its dependents to be
 * gone (a dependent whose uninstall failed still needs it).
 */
function blockerOf(
  inventory: Inventory,
  plan: Plan,
  action: Action,
  unavailable: ReadonlySet<string>,
): string | null {
  if (action.kind !== 'uninstall')
    return (
      inventory.modules.get(action.module)?.depends.find((dependency) => unavailable.has(dependency)) ?? null
    );
  const dependent = plan.actions.find(
    (other) =>
      other.kind === 'uninstall' &&
      unavailable.has(other.module) &&
      (inventory.modules.get(other.module)?.depends ?? []).includes(action.module),
  );
  return dependent?.module ?? null;
}

/**
 * The uninstalls that come after `action` in the plan, in order: an uninstall's `check` proves
 * them too, so that the first module of a cascade is not removed while a later one cannot be.
 */
function laterUninstalls(inventory: Inventory, plan: Plan, action: Action): DiskModule[] {
  if (action.kind !== 'uninstall') return [];
  return plan.actions
    .slice(plan.actions.indexOf(action) + 1)
    .filter((other) => other.kind === 'uninstall')
    .flatMap((other) => inventory.modules.get(other.module) ?? []);
}

/** Returns null when every step is done, or the step that failed and why. */
async function applyAction(
  env: ApplyEnv,
  apis: ModuleApis,
  emit: Emit,
  action: Action,
  later: readonly DiskModule[],
  log: readonly LogRow[],
  nextStepNumber: () => number,
): Promise<{ step: StepName; error: string } | null> {
  const module = env.inventory.modules.get(action.module);
  if (module === undefined) throw new Error(`planner scheduled ${action.module}, which is not on disk`);
  const done = doneSteps(log, action.module, action.kind);
  const stepEnv: StepEnv = {
    module,
    action,
    laterUninstalls: later,
    storageDir: env.storageDir,
    logger: env.logger,
    apis,
  };
  for (const step of STEPS[action.kind]) {
    if (done.has(step)) continue;
    const ref = {
      runId: env.runId,
      number: nextStepNumber(),
      module: action.module,
      operation: action.kind,
      step,
    };
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const transactional = !NON_TRANSACTIONAL.has(step);
    try {
      await emit({ ...ref, type: 'started' });
      const work = async (knex: Knex, transaction: Knex.Transaction | null) => {
        const result = await runStep(step, knex, stepEnv);
        await emit({ ...ref, type: 'completed', detail: result, transaction });
        return result;
      };
      const detail = transactional
        ? await actingTransaction(env.knex, SYSTEM_ACTOR, (trx) => work(trx, trx))
        : await work(env.knex, null);
      // A non-transactional step's `done` row is written here: if it cannot be, the step failed.
      await emit({ ...ref, type: 'committed', detail, transactional, ms: ms() });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await recordError(env.knex, action.module, `${action.kind} failed at ${step}: ${message}`);
      await emit({ ...ref, type: 'failed', error, message, ms: ms() });
      return { step, error: message };
    }
  }
  return null;
}
