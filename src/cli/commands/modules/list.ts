import { readModuleRows } from '../../../db/modules.ts';
import { listModules, type ListEntry } from '../../../controller/overview.ts';
import { ModuleCommand } from '../../module-command.ts';
import { table } from '../../render.ts';

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

export function renderList(entries: ListEntry[]): string {
  return table(
    ['NAME', 'VERSION', 'STATE', 'CATEGORY', 'DEPENDS'],
    entries.map((entry) => [
      entry.name,
      entry.version ?? '-',
      entry.state,
      entry.category ?? 'missing',
      entry.depends.length === 0 ? '-' : entry.depends.join(','),
    ]),
  );
}
