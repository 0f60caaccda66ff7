import { embeddedStatus } from '../../../db/embedded.ts';
import { redactUrl } from '../../../config/redact-url.ts';
import { WardCommand } from '../../base.ts';

interface DbStatusReport {
  mode: 'external' | 'embedded';
  url: string | null;
  running: boolean | null;
  dataDir: string | null;
  logFile: string | null;
  logDir: string | null;
}

export default class DbStatus extends WardCommand {
  static override description = 'Show which database Ward uses and whether the embedded server runs';
  static override examples = ['<%= config.bin %> db status'];
  static override enableJsonFlag = true;

  async run(): Promise<DbStatusReport> {
    const status = await readStatus(this.settings.databaseUrl, this.settings.storageDir);
    this.log(
      status.mode === 'external'
        ? `Database: DATABASE_URL (${status.url})`
        : status.url === null
          ? 'Database: embedded PostgreSQL, not initialised yet (the first `ward` command that needs it creates it)'
          : [
              `Database: embedded PostgreSQL, ${status.running ? 'running' : 'stopped'}`,
              `URL:      ${status.url}`,
              `Data:     ${status.dataDir}`,
              `Log:      ${status.logDir} (one file a weekday; start-up output in ${status.logFile})`,
            ].join('\n'),
    );
    return status;
  }
}

async function readStatus(databaseUrl: string | null, storageDir: string): Promise<DbStatusReport> {
  if (databaseUrl !== null)
    return {
      mode: 'external',
      url: redactUrl(databaseUrl),
      running: null,
      dataDir: null,
      logFile: null,
      logDir: null,
    };
  const { running, server } = await embeddedStatus(storageDir);
  return {
    mode: 'embedded',
    url: server === null ? null : redactUrl(server.url),
    running,
    dataDir: server?.dataDir ?? null,
    logFile: server?.logFile ?? null,
    logDir: server?.logDir ?? null,
  };
}
