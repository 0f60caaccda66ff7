import { pendingPlanReport, type PlanReport } from '../../../inspect/module-reports.ts';
import { ModuleCommand } from '../../module-command.ts';
import { NEXT_STEP_RESTART, renderPlan } from '../../render.ts';

export default class ModulesPlan extends ModuleCommand {
  static override description = 'Show what the next restart will apply (the pending to_* states)';
  static override examples = ['<%= config.bin %> modules plan'];
  static override enableJsonFlag = true;

  async run(): Promise<PlanReport> {
    const [knex, inventory] = await Promise.all([this.db(), this.inventory()]);
    const report = await pendingPlanReport(knex, inventory);
    const { plan } = report;
    this.log(
      plan.actions.length === 0 && plan.blocked.length === 0
        ? 'Nothing is pending; a restart applies no module changes.'
        : [renderPlan(plan), '', NEXT_STEP_RESTART].join('\n'),
    );
    return report;
  }
}
