import { databaseUrl } from '../../../db/connection.ts';
import { WardCommand } from '../../base.ts';

export default class DbUrl extends WardCommand {
  static override description =
    'Print the connection URL of the database Ward uses: DATABASE_URL when set, else the embedded server (started if need be). The URL holds the password';
  static override examples = ['<%= config.bin %> db url', '<%= config.bin %> db url --json'];
  static override enableJsonFlag = true;

  async run(): Promise<{ url: string; embedded: boolean }> {
    const url = await databaseUrl(this.settings);
    this.log(url);
    return { url, embedded: this.settings.databaseUrl === null };
  }
}
