import { pendingPlan } from '../../../controller/schedule.ts';
import type { Plan } from '../../../controller/types.ts';
import { ModuleCommand } from '../../module-command.ts';
import { renderPlan } from '../../render.ts';

const NEXT_STEP = [
  'Restart the backend to apply it. Any of these has the same effect (SIGTERM, then the runtime respawns it):',
  '  docker compose restart backend',
  '  curl -X POST -H "Authorization: Bearer $ADMIN_TOKEN" {base_url}/api/v1/modules/-/restart',
  '  or stop and start `ward serve`',
].join('\n');

export default class ModulesRestart extends ModuleCommand {
  static override description = 'Print what a backend restart will apply, and how to restart it';
  static override examples = ['<%= config.bin %> modules restart'];
  static override enableJsonFlag = true;

  async run(): Promise<{ plan: Plan; nextStep: string }> {
    const [knex, inventory] = await Promise.all([this.db(), this.inventory()]);
    const plan = await pendingPlan(knex, inventory);
    this.log([renderPlan(plan), '', NEXT_STEP].join('\n'));
    return { plan, nextStep: NEXT_STEP };
  }
}
