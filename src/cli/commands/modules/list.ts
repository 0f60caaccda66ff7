import { readModuleRows } from '../../../db/modules.ts';
import { listModules, type ListEntry } from '../../../planner/overview.ts';
import { ModuleCommand } from '../../module-command.ts';
import { renderList } from '../../render.ts';

/**
 * Typed as `ward modules list [--json]`, the command usually runs on the lean path (lean-list.ts)
 * instead, which must print the same: test/cli/lean-list.test.ts compares the two.
 */
export default class ModulesList extends ModuleCommand {
  static override description = 'List every module on disk or in the database';
  static override examples = ['<%= config.bin %> modules list', '<%= config.bin %> modules list --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ListEntry[]> {
    const [inventory, rows] = await Promise.all([this.inventory(), this.db().then(readModuleRows)]);
    const entries = listModules(inventory, rows);
    this.log(renderList(entries));
    return entries;
  }
}
