import path from 'node:path';
import { Flags } from '@oclif/core';
import { backendSettings } from '../../server/backend-settings.ts';
import { parseSwitch } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { supervise } from '../../server/supervisor.ts';
import { watchModules } from '../../server/watcher.ts';
import { WardCommand } from '../base.ts';

export default class Serve extends WardCommand {
  static override description =
    'Run Ward: a backend process (see `ward backend`), started again whenever it exits, as a container runtime would';
  static override examples = [
    '<%= config.bin %> serve',
    'PORT=9000 <%= config.bin %> serve',
    '<%= config.bin %> serve --watch',
  ];
  static override flags = {
    watch: Flags.boolean({
      description: 'restart the backend when module code changes (for module authors)',
      default: false,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const logger = createLogger('ward-supervisor');
    // The backend checks these too; checked here, a bad one is one error, not starts under back-off.
    backendSettings(this.settings);
    const spare = parseSwitch('WARD_SPARE_BACKEND', this.settings.spareBackend, true);
    const entry = path.join(this.settings.root, 'src', 'server', 'backend-main.ts');
    const supervisor = supervise(
      process.execPath,
      [entry],
      logger,
      spare ? { spare: { codeRoot: this.settings.root } } : {},
    );
    process.on('SIGTERM', () => supervisor.stop('SIGTERM'));
    process.on('SIGINT', () => supervisor.stop('SIGTERM'));
    const watcher = flags.watch
      ? await watchModules(this.settings, () => {
          logger.info('module code changed; restarting the backend');
          supervisor.restart();
        })
      : null;
    await supervisor.done;
    await watcher?.close();
  }
}
