import { Flags } from '@oclif/core';
import { dryRunFlag, ScheduleCommand, type ScheduleResult } from '../../schedule-command.ts';
import { moduleNameArg } from '../../module-command.ts';

export default class ModulesUpgrade extends ScheduleCommand {
  static override description =
    'Schedule an installed module for upgrade to the version on disk (and any dependency that version adds)';
  static override examples = [
    '<%= config.bin %> modules upgrade patients',
    '<%= config.bin %> modules upgrade documents --cascade',
  ];
  static override args = { module_name: moduleNameArg };
  static override flags = {
    cascade: Flags.boolean({
      description:
        'also upgrade, to their versions on disk, installed modules that require a version range of it the new version is outside',
      default: false,
    }),
    force: Flags.boolean({
      description:
        'upgrade even when installed modules require a version range of it the new version is outside; `ward modules doctor` then reports them',
      default: false,
    }),
    'dry-run': dryRunFlag,
  };

  async run(): Promise<ScheduleResult> {
    const { args, flags } = await this.parse(ModulesUpgrade);
    return this.schedule(
      { kind: 'upgrade', name: args.module_name, force: flags.force, cascade: flags.cascade },
      flags['dry-run'],
    );
  }
}
