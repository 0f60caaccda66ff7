import { orphan } from '../../../db/schedule.ts';
import { dryRunFlag } from '../../schedule-command.ts';
import { ModuleCommand, moduleNameArg } from '../../module-command.ts';

export default class ModulesOrphan extends ModuleCommand {
  static override description =
    'Mark a module whose code is gone from disk as uninstalled, without running its uninstall steps (no backup, no purge, no downgrade)';
  static override examples = ['<%= config.bin %> modules orphan old_reports'];
  static override enableJsonFlag = true;
  static override args = { module_name: moduleNameArg };
  static override flags = { 'dry-run': dryRunFlag };

  async run(): Promise<{ module: string; changed: boolean; dryRun: boolean; runId: string | null }> {
    const { args, flags } = await this.parse(ModulesOrphan);
    const [knex, inventory] = await Promise.all([this.db(), this.inventory()]);
    const { changed, runId } = await this.operatorActing(knex).transaction((trx) =>
      orphan(trx, inventory, args.module_name, { dryRun: flags['dry-run'] }),
    );
    const name = args.module_name;
    if (!changed) this.log(`${name} is already uninstalled; nothing to orphan.`);
    else if (flags['dry-run']) this.log(`Dry run: ${name} would be marked uninstalled. Nothing was changed.`);
    else
      this.log(
        `${name} is now uninstalled. Its tables, seed records and migration rows were left as they were.`,
      );
    return { module: name, changed, dryRun: flags['dry-run'], runId };
  }
}
