import { WardError } from '../../../errors/ward-error.ts';
import { moduleInfo, type ModuleInfo } from '../../../planner/overview.ts';
import { appliedRevision } from '../../../db/migrate.ts';
import { readModuleRows } from '../../../db/modules.ts';
import { ModuleCommand, moduleNameArg } from '../../module-command.ts';

export default class ModulesInfo extends ModuleCommand {
  static override description =
    'Show one module: version, state, applied revision, last state change, errors';
  static override examples = [
    '<%= config.bin %> modules info patients',
    '<%= config.bin %> modules info patients --json',
  ];
  static override enableJsonFlag = true;
  static override args = { module_name: moduleNameArg };

  async run(): Promise<ModuleInfo> {
    const { args } = await this.parse(ModulesInfo);
    const knex = await this.db();
    const [inventory, rows, revision] = await Promise.all([
      this.inventory(),
      readModuleRows(knex),
      appliedRevision(knex, args.module_name),
    ]);
    const info = moduleInfo(
      inventory.modules.get(args.module_name),
      rows.find((row) => row.name === args.module_name),
      revision,
    );
    if (info === null)
      throw new WardError(
        'unknown_module',
        `no module named "${args.module_name}" on disk or in the database`,
        'run `ward modules list` to see the modules Ward knows',
      );
    this.log(renderInfo(info));
    return info;
  }
}

function renderInfo(info: ModuleInfo): string {
  const fields: Array<[string, string]> = [
    ['Name', info.name],
    ['State', info.state],
    ['Version', info.version ?? '-'],
    ['Disk version', info.diskVersion ?? 'missing from disk'],
    ['Category', info.category ?? '-'],
    ['Depends', info.depends.length === 0 ? '-' : info.depends.join(', ')],
    [
      'Requires',
      Object.keys(info.requires).length === 0
        ? '-'
        : Object.entries(info.requires)
            .map(([module, range]) => `${module} ${range}`)
            .join(', '),
    ],
    ['Removable', info.removable === null ? '-' : String(info.removable)],
    ['Migration branch', info.migrationBranch ?? 'none (legacy module)'],
    ['Applied revision', info.appliedRevision ?? '-'],
    ['Installed at', info.installedAt ?? '-'],
    ['Last state change', info.lastStateChange ?? '-'],
    ['Error', info.errorMessage ?? '-'],
    ['Path', info.path ?? '-'],
  ];
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}`).join('\n');
}
