import {
  frontendModules,
  frontendModulesFile,
  writeFrontendModules,
  type FrontendModules,
} from '../../../manifests/frontend-layers.ts';
import { readModuleRows } from '../../../db/modules.ts';
import { ModuleCommand } from '../../module-command.ts';

export default class ModulesSyncFrontend extends ModuleCommand {
  static override description =
    'Regenerate frontend/modules.json from the installed modules that ship a frontend layer';
  static override examples = ['<%= config.bin %> modules sync-frontend'];
  static override enableJsonFlag = true;

  async run(): Promise<FrontendModules & { file: string; changed: boolean }> {
    const [inventory, rows] = await Promise.all([this.inventory(), this.db().then(readModuleRows)]);
    const content = frontendModules(inventory, rows, this.settings.root);
    const file = frontendModulesFile(this.settings.frontendDir);
    const changed = await writeFrontendModules(file, content);
    const layers = content.modules.map((m) => `  ${m.name}  ${m.layer}`);
    this.log(
      [
        `${changed ? 'Wrote' : 'Unchanged:'} ${file} (${content.modules.length} module layer(s))`,
        ...layers,
        ...(changed
          ? [
              'Next step: reload the open pages; the shell loads the layers modules.json lists at each page load.',
            ]
          : []),
      ].join('\n'),
    );
    return { ...content, file, changed };
  }
}
