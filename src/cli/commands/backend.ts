import { applyModuleSettings } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { runBackend } from '../../server/backend.ts';
import { parseLogLevel } from '../../config/backend-settings.ts';
import { WardCommand } from '../base.ts';

export default class Backend extends WardCommand {
  static override description =
    'Run one backend process (no supervisor): what a container runs. Applies pending module changes, then serves HTTP on PORT; stops gracefully on SIGTERM or a restart request';
  static override examples = ['<%= config.bin %> backend'];

  async run(): Promise<void> {
    // Modules read their settings from process.env: values from a settings file are put there.
    applyModuleSettings(this.settings);
    await runBackend(this.settings, createLogger(parseLogLevel(this.settings)), (line) => this.log(line));
  }
}
