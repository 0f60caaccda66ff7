import { dryRunFlag, ScheduleCommand, type ScheduleResult } from '../../schedule-command.ts';
import { moduleNameArg } from '../../module-command.ts';

export default class ModulesInstall extends ScheduleCommand {
  static override description =
    'Schedule a module, and every dependency it needs, for installation at the next restart';
  static override examples = [
    '<%= config.bin %> modules install appointments',
    '<%= config.bin %> modules install appointments --dry-run',
  ];
  static override args = { module_name: moduleNameArg };
  static override flags = { 'dry-run': dryRunFlag };

  async run(): Promise<ScheduleResult> {
    const { args, flags } = await this.parse(ModulesInstall);
    return this.schedule({ kind: 'install', name: args.module_name }, flags['dry-run']);
  }
}
