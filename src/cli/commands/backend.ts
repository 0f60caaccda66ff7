import { runBundledBackend } from '../../server/run-bundle.ts';
import { WardCommand } from '../base.ts';

export default class Backend extends WardCommand {
  static override description =
    'Run one backend process (no supervisor): what a container runs. Applies pending module changes, then serves HTTP on PORT; stops gracefully on SIGTERM or a restart request';
  static override examples = ['<%= config.bin %> backend'];

  // bin/ward runs `ward backend` without oclif; this is the same start when oclif parses the line.
  async run(): Promise<void> {
    await runBundledBackend(this.settings.root);
  }
}
