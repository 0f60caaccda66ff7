import { dryRunFlag, ScheduleCommand, type ScheduleResult } from '../../schedule-command.ts';
import { moduleNameArg } from '../../module-command.ts';

export default class ModulesUpgrade extends ScheduleCommand {
  static override description =
    'Schedule an installed module for upgrade to the version on disk (and any dependency that version adds)';
  static override examples = ['<%= config.bin %> modules upgrade patients'];
  static override args = { module_name: moduleNameArg };
  static override flags = { 'dry-run': dryRunFlag };

  async run(): Promise<ScheduleResult> {
    const { args, flags } = await this.parse(ModulesUpgrade);
    return this.schedule({ kind: 'upgrade', name: args.module_name }, flags['dry-run']);
  }
}
