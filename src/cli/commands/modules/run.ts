import { LOG_SERIALIZERS } from '../../../logger.ts';
import { Args } from '@oclif/core';
import os from 'node:os';
import { pino } from 'pino';
import { readModuleRows } from '../../../db/modules.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { findInactive, inactiveText } from '../../../planner/inactive.ts';
import type { DiskModule } from '../../../planner/types.ts';
import type { CommandDefinition, CommandResult } from '../../../sdk/index.ts';
import { acting, cliActor } from '../../../db/acting.ts';
import { ModuleApis } from '../../../sdk/module-apis.ts';
import { ModuleCommand, moduleNameArg } from '../../module-command.ts';
import { loadModuleCommands } from '../../module-commands.ts';

export type RunResult =
  | { module: string; commands: Array<{ name: string; usage: string; summary: string }> }
  | { module: string; command: string; result: unknown };

export default class ModulesRun extends ModuleCommand {
  static override description =
    "Run one of an installed module's own commands (its commands.ts or commands.js); without a command, list them";
  static override examples = [
    '<%= config.bin %> modules run migration_import',
    '<%= config.bin %> modules run migration_import purge 42',
  ];
  static override enableJsonFlag = true;
  // The command's own arguments follow its name and are the module's to parse.
  static override strict = false;
  static override args = {
    module_name: moduleNameArg,
    command: Args.string({ description: "the module's command; leave it out to list them", required: false }),
  };

  async run(): Promise<RunResult> {
    const { args, argv } = await this.parse(ModulesRun);
    const module = await this.installedModule(args.module_name);
    const commands = await loadModuleCommands(module);
    if (commands.length === 0)
      throw new WardError(
        'no_commands',
        `module ${module.name} has no commands`,
        "see `ward modules info` and the module's documentation",
      );
    if (args.command === undefined) {
      for (const command of commands)
        this.log(`${[command.name, command.usage ?? ''].join(' ').trim()}\n  ${command.summary}`);
      return { module: module.name, commands: commands.map(listed) };
    }
    const command = commands.find((candidate) => candidate.name === args.command);
    if (command === undefined)
      throw new WardError(
        'unknown_command',
        `module ${module.name} has no command "${args.command}"; it has ${commands.map((candidate) => candidate.name).join(', ')}`,
        `run \`ward modules run ${module.name}\` to list them`,
        { exitCode: 2 },
      );
    const result = await this.runCommand(module, command, argv.slice(2).map(String));
    for (const line of result.lines) this.log(line);
    return { module: module.name, command: command.name, result: result.data ?? result.lines };
  }

  /** A module's commands work on its tables: it must be on disk, installed and active. */
  private async installedModule(name: string): Promise<DiskModule> {
    const [inventory, rows] = await Promise.all([this.inventory(), this.db().then(readModuleRows)]);
    const module = inventory.modules.get(name);
    if (module === undefined)
      throw new WardError(
        'unknown_module',
        `no module named "${name}" on disk`,
        'run `ward modules list` to see the modules Ward knows',
      );
    const state = rows.find((row) => row.name === name)?.state ?? 'uninstalled';
    if (state !== 'installed')
      throw new WardError(
        'module_not_installed',
        `module ${name} is ${state}: its commands need it installed`,
        `install it (\`ward modules install ${name}\`, then a restart), or wait for the restart that applies the pending change`,
      );
    // Its code would fail at its first use of the missing module, as its routes would.
    const inactive = findInactive(inventory, rows).find((entry) => entry.module === name);
    if (inactive !== undefined) {
      const { message, hint } = inactiveText(inactive);
      throw new WardError('module_inactive', message, hint);
    }
    return module;
  }

  private async runCommand(
    module: DiskModule,
    command: CommandDefinition,
    args: string[],
  ): Promise<CommandResult> {
    const operator = cliActor(os.userInfo().username);
    // Logs go to stderr, so that --json output stays JSON; they say who ran the command.
    const logger = pino(
      { name: 'ward', level: this.settings.logLevel, serializers: LOG_SERIALIZERS },
      pino.destination(2),
    ).child({
      module: module.name,
      command: command.name,
      operator,
    });
    const knex = await this.db();
    const storageDir = this.settings.storageDir;
    const apis = new ModuleApis({ modules: (await this.inventory()).modules, knex, storageDir, logger });
    return command.run(args, {
      knex,
      logger,
      manifest: module.manifest,
      storageDir,
      operator,
      acting: acting(knex, operator),
      sdk: await apis.sdkFor(module),
    });
  }
}

const listed = (command: CommandDefinition) => ({
  name: command.name,
  usage: command.usage ?? '',
  summary: command.summary,
});
