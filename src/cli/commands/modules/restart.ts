import { Flags } from '@oclif/core';
import type { Knex } from 'knex';
import { WardError } from '../../../errors/ward-error.ts';
import { pendingPlan } from '../../../db/schedule.ts';
import type { Plan } from '../../../planner/types.ts';
import { requestRestart, runningBackends, type RunningBackend } from '../../../db/restart-signal.ts';
import { ModuleCommand } from '../../module-command.ts';
import { renderPlan } from '../../render.ts';

const NO_BACKEND = [
  'No backend is running, so nothing was restarted. Start it to apply the plan:',
  '  docker compose up -d backend   (or: ward serve)',
].join('\n');

interface LogLine {
  id: string;
  module_name: string;
  operation: string;
  step: string;
  status: string;
  message: string | null;
}

interface RestartResult {
  plan: Plan;
  restarted: number;
  waited: boolean;
  failed: Array<{ module: string; step: string; message: string | null }>;
}

export default class ModulesRestart extends ModuleCommand {
  static override description =
    'Restart every running backend (each stops gracefully and is started again), which applies the pending plan';
  static override examples = [
    '<%= config.bin %> modules restart',
    '<%= config.bin %> modules restart --wait',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    wait: Flags.boolean({
      description: 'follow the operation log until the backends are back; exit 1 if a module failed',
      default: false,
    }),
    timeout: Flags.integer({
      description: 'with --wait: seconds to wait for the backends to come back',
      default: 120,
      min: 1,
    }),
  };

  async run(): Promise<RestartResult> {
    const { flags } = await this.parse(ModulesRestart);
    const [knex, inventory] = await Promise.all([this.db(), this.inventory()]);
    const plan = await pendingPlan(knex, inventory);
    this.log(renderPlan(plan));
    const before = await runningBackends(knex);
    if (before.length === 0) {
      if (flags.wait)
        throw new WardError(
          'no_backend',
          'no backend is running, so there is nothing to wait for',
          'start it: `ward serve` or `docker compose up -d backend`',
        );
      this.log(`\n${NO_BACKEND}`);
      return { plan, restarted: 0, waited: false, failed: [] };
    }
    const fromId = await lastLogId(knex);
    await requestRestart(knex);
    this.log(`\nAsked ${before.length} running backend(s) to restart.`);
    if (!flags.wait) return { plan, restarted: before.length, waited: false, failed: [] };
    const failed = await this.follow(knex, before, fromId, flags.timeout * 1000);
    if (failed.length > 0) process.exitCode = 1;
    this.log(
      failed.length > 0
        ? `${failed.length} module step(s) failed; see \`ward modules doctor\`.`
        : 'Backends are back.',
    );
    return { plan, restarted: before.length, waited: true, failed };
  }

  /** Prints operation-log rows as they appear until as many backends as before are up again, all new. */
  private async follow(knex: Knex, before: RunningBackend[], fromId: string, timeoutMs: number) {
    const old = new Set(before.map((backend) => backend.pid));
    const failed: RestartResult['failed'] = [];
    let seen = fromId;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = (await knex('core_module_operation_log')
        .where('id', '>', seen)
        .orderBy('id')
        .select('id', 'module_name', 'operation', 'step', 'status', 'message')) as LogLine[];
      for (const row of rows) {
        seen = row.id;
        this.log(
          `  ${row.operation} ${row.module_name}: ${row.step} ${row.status}${row.message ? ` (${row.message})` : ''}`,
        );
        if (row.status === 'failed' || row.status === 'skipped')
          failed.push({ module: row.module_name, step: row.step, message: row.message });
      }
      const now = await runningBackends(knex);
      if (now.length >= before.length && now.every((backend) => !old.has(backend.pid))) return failed;
      if (Date.now() > deadline)
        throw new WardError(
          'restart_timeout',
          `the backends did not come back within ${Math.round(timeoutMs / 1000)} s`,
          'check the backend logs (a start refused because of orphan modules keeps retrying), then `ward modules doctor`',
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function lastLogId(knex: Knex): Promise<string> {
  const row = (await knex('core_module_operation_log').max('id as id').first()) as
    { id: string | null } | undefined;
  return row?.id ?? '0';
}
