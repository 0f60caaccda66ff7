import { Flags } from '@oclif/core';
import { dryRunFlag, ScheduleCommand, type ScheduleResult } from '../../schedule-command.ts';
import { moduleNameArg } from '../../module-command.ts';

export default class ModulesUninstall extends ScheduleCommand {
  static override description =
    'Schedule a module for uninstall at the next restart: check that its downgrade can finish, then backup, uninstall hook, purge of its seed records, downgrade of its migration branch';
  static override examples = [
    '<%= config.bin %> modules uninstall appointments',
    '<%= config.bin %> modules uninstall clinic_portal --force',
    '<%= config.bin %> modules uninstall patients --cascade --force',
  ];
  static override args = { module_name: moduleNameArg };
  static override flags = {
    force: Flags.boolean({
      description:
        'uninstall even when the module\'s manifest says "removable": false, or installed modules depend on it (only this module is uninstalled; they stay installed but inactive until it is installed again); never overrides foreign keys from other modules\' tables into its tables',
      default: false,
    }),
    cascade: Flags.boolean({
      description:
        'also uninstall every installed module that depends on it or whose tables hold foreign keys into its tables, those first',
      default: false,
    }),
    'dry-run': dryRunFlag,
  };

  async run(): Promise<ScheduleResult> {
    const { args, flags } = await this.parse(ModulesUninstall);
    return this.schedule(
      { kind: 'uninstall', name: args.module_name, force: flags.force, cascade: flags.cascade },
      flags['dry-run'],
    );
  }
}
