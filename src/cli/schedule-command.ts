/**
 * install, upgrade and uninstall differ only in the request they make; printing the plan, the
 * dry-run flag and the JSON result are the same for all three and live here once.
 */
import { Flags } from '@oclif/core';
import { schedule } from '../db/schedule.ts';
import type { Plan, Request, Unchanged } from '../planner/types.ts';
import { ModuleCommand } from './module-command.ts';
import { summarisePlan, type PlanSummary } from '../planner/overview.ts';
import { NEXT_STEP_RESTART, renderPlan } from './render.ts';

export interface ScheduleResult {
  plan: Plan;
  summary: PlanSummary;
  /** Whether desired state was written (false for --dry-run and for requests that change nothing). */
  scheduled: boolean;
  dryRun: boolean;
  runId: string | null;
}

export const dryRunFlag = Flags.boolean({ description: 'print the plan and change nothing', default: false });

export abstract class ScheduleCommand extends ModuleCommand {
  static override enableJsonFlag = true;

  protected async schedule(
    request: Exclude<Request, { kind: 'reconcile' }>,
    dryRun: boolean,
  ): Promise<ScheduleResult> {
    const [knex, inventory] = await Promise.all([this.db(), this.inventory()]);
    const { plan, runId } = await this.operatorActing(knex).transaction((trx) =>
      schedule(trx, inventory, request, { dryRun }),
    );
    const result = { plan, summary: summarisePlan(plan), scheduled: runId !== null, dryRun, runId };
    this.log(renderScheduled(result, request.kind));
    return result;
  }
}

function renderScheduled(result: ScheduleResult, verb: Request['kind']): string {
  if (result.plan.actions.length === 0)
    return result.plan.unchanged.map((u) => describeUnchanged(u, verb)).join('\n');
  const header = result.dryRun
    ? 'Ward would perform the following actions at the next restart:'
    : 'Ward will perform the following actions at the next restart:';
  const footer = result.dryRun
    ? 'Dry run: nothing was scheduled. Run the command again without --dry-run to schedule it.'
    : `Scheduled. ${NEXT_STEP_RESTART}`;
  return [header, '', renderPlan(result.plan), '', footer].join('\n');
}

function describeUnchanged(unchanged: Unchanged, verb: Request['kind']): string {
  const state = unchanged.state.startsWith('to_')
    ? `already scheduled (${unchanged.state}); it is applied at the next restart`
    : `already ${unchanged.state}`;
  return `${unchanged.module} is ${state}; nothing to ${verb}.`;
}
