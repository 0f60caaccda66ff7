/**
 * The applier: runs a restart-time plan step by step (SPEC §3), in the plan's order. For each
 * step it logs `started`, runs it, and logs `done` inside the step's own transaction, or `failed`
 * with the error. A module whose step fails keeps its pending state and the error in
 * `core_module.error_message`; modules that need it are skipped with an error naming it; every
 * other module proceeds. The caller holds the reconcile lock.
 */
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { appendLog, readAttemptLog, recordError } from '../db/modules.ts';
import type { Logger } from '../logger.ts';
import { crashSwitch, type Crash } from './crash.ts';
import { refusalToError } from '../planner/refusals.ts';
import { doneSteps } from '../planner/resume.ts';
import { NON_TRANSACTIONAL, runStep, type StepEnv } from './steps/run.ts';
import {
  STEPS,
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
  crash?: Crash;
}

export interface ApplyReport {
  applied: Array<{ module: string; kind: Action['kind'] }>;
  failed: Array<{ module: string; step: StepName; error: string }>;
  skipped: Array<{ module: string; because: string }>;
}

export async function applyPlan(env: ApplyEnv, plan: Plan): Promise<ApplyReport> {
  const report: ApplyReport = { applied: [], failed: [], skipped: [] };
  const crash = env.crash ?? crashSwitch();
  const unavailable = new Set<string>();
  for (const { module, refusal } of plan.blocked) {
    const error = refusalToError(refusal);
    unavailable.add(module);
    report.skipped.push({ module, because: error.message });
    await recordError(env.knex, module, `not applied: ${error.message}`);
    env.logger.warn({ module, code: error.code }, `not applied: ${error.message}`);
  }
  const log = await readAttemptLog(
    env.knex,
    plan.actions.map((action) => action.module),
  );
  let stepNumber = 0;
  for (const action of plan.actions) {
    const blocker = blockerOf(env.inventory, plan, action, unavailable);
    if (blocker !== null) {
      unavailable.add(action.module);
      const because = `${blocker} failed or was skipped in the same restart`;
      report.skipped.push({ module: action.module, because });
      await skip(env, action, because);
      continue;
    }
    const result = await applyAction(env, action, log, () => ++stepNumber, crash);
    if (result === null) report.applied.push({ module: action.module, kind: action.kind });
    else {
      unavailable.add(action.module);
      report.failed.push({ module: action.module, ...result });
    }
  }
  return report;
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

async function skip(env: ApplyEnv, action: Action, because: string): Promise<void> {
  const message = `skipped: ${because}`;
  await appendLog(env.knex, env.runId, [
    { module_name: action.module, operation: action.kind, step: 'skip', status: 'skipped', message },
  ]);
  await recordError(env.knex, action.module, message);
  env.logger.warn({ module: action.module, operation: action.kind }, message);
}

/** Returns null when every step is done, or the step that failed and why. */
async function applyAction(
  env: ApplyEnv,
  action: Action,
  log: readonly LogRow[],
  nextStepNumber: () => number,
  crash: Crash,
): Promise<{ step: StepName; error: string } | null> {
  const module = env.inventory.modules.get(action.module);
  if (module === undefined) throw new Error(`planner scheduled ${action.module}, which is not on disk`);
  const done = doneSteps(log, action.module, action.kind);
  const stepEnv: StepEnv = { module, action, storageDir: env.storageDir, logger: env.logger };
  for (const step of STEPS[action.kind]) {
    if (done.has(step)) continue;
    const entry = { module_name: action.module, operation: action.kind, step };
    const number = nextStepNumber();
    const started = performance.now();
    await appendLog(env.knex, env.runId, [{ ...entry, status: 'started' }]);
    crash(number, 'start');
    try {
      const finish = async (knex: Knex) => {
        const detail = await runStep(step, knex, stepEnv);
        crash(number, 'middle');
        await appendLog(knex, env.runId, [{ ...entry, status: 'done', detail }]);
      };
      if (NON_TRANSACTIONAL.has(step)) await finish(env.knex);
      else await env.knex.transaction(finish);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      await appendLog(env.knex, env.runId, [{ ...entry, status: 'failed', message: text }]);
      await recordError(env.knex, action.module, `${action.kind} failed at ${step}: ${text}`);
      env.logger.error({ ...stepFields(action, step, started), err: error }, `${step} failed`);
      return { step, error: text };
    }
    crash(number, 'end');
    env.logger.info(stepFields(action, step, started), `${action.kind} ${action.module}: ${step} done`);
  }
  return null;
}

const stepFields = (action: Action, step: StepName, started: number) => ({
  module: action.module,
  operation: action.kind,
  step,
  ms: Math.round(performance.now() - started),
});
