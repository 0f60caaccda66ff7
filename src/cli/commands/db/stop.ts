import { WardError } from '../../../errors/ward-error.ts';
import { stopEmbedded } from '../../../db/embedded.ts';
import { WardCommand } from '../../base.ts';

export default class DbStop extends WardCommand {
  static override description =
    'Stop the embedded PostgreSQL server (the next `ward` command that needs it starts it again, and so does a running backend: stop the backends first to keep it stopped)';
  static override examples = ['<%= config.bin %> db stop'];
  static override enableJsonFlag = true;

  async run(): Promise<{ stopped: boolean }> {
    if (this.settings.databaseUrl !== null)
      throw new WardError(
        'external_database',
        'DATABASE_URL is set, so Ward does not manage this database server',
        'stop it with the tool that runs it, or unset DATABASE_URL to manage the embedded server',
      );
    const stopped = await stopEmbedded(this.settings.storageDir);
    this.log(stopped ? 'Stopped the embedded PostgreSQL.' : 'The embedded PostgreSQL is not running.');
    return { stopped };
  }
}
