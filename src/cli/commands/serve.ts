import path from 'node:path';
import { Flags } from '@oclif/core';
import { backendSettings, parseLogLevel } from '../../config/backend-settings.ts';
import { parseSwitch, type Config } from '../../config.ts';
import { checkDatabaseUrl } from '../../db/connection.ts';
import { listenAsSupervisor } from '../../db/restart-signal.ts';
import { createLogger } from '../../logger.ts';
import { BUNDLE_ENTRY } from '../../server/backend-bundle.ts';
import { freshBundle } from '../../server/build-bundle.ts';
import { assertAddressFree, METRICS_ADDRESS } from '../../server/server.ts';
import { supervise } from '../../server/supervisor.ts';
import { watchModules, watchStartInputs } from '../../server/watcher.ts';
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
    const logger = createLogger(parseLogLevel(this.settings), 'ward-supervisor');
    // The backend checks these too; checked here, a bad one is one error, not starts under back-off.
    const { port, host, metrics } = backendSettings(this.settings);
    // Likewise an address another `ward serve` (or anything else) holds: the supervisor would stop
    // at the backend's failure to listen, but only after starting it.
    await assertAddressFree(port, host);
    if (metrics !== null) await assertAddressFree(metrics.port, metrics.host, METRICS_ADDRESS);
    const spare = parseSwitch('WARD_SPARE_BACKEND', this.settings.spareBackend, true);
    // `npm start` after editing Ward's code: the backends start from a bundle of the code on disk.
    await freshBundle(this.settings.root, (reason) =>
      logger.info({ reason }, 'building the backend bundle (npm run build:backend)'),
    );
    const entry = path.join(this.settings.root, BUNDLE_ENTRY);
    const supervisor = supervise(
      process.execPath,
      // The backend runs with the Node flags `ward` itself got (bin/ward's memory limits), as fork would.
      [...process.execArgv, entry],
      logger,
      spare ? { spare: { codeRoot: this.settings.root } } : {},
    );
    process.on('SIGTERM', () => supervisor.stop('SIGTERM'));
    process.on('SIGINT', () => supervisor.stop('SIGTERM'));
    // While a start keeps failing, a fix is picked up at once: a change to what the start reads from
    // disk, or `ward modules restart` (after `ward modules orphan`, say), which also sees this
    // supervisor and so knows a backend is on its way.
    const inputs = watchStartInputs(this.settings, () =>
      supervisor.wake('module code, a settings file or the grants file changed'),
    ).catch((error: unknown) => {
      logger.warn({ err: error }, 'cannot watch module code, settings and grants for fixes');
      return null;
    });
    const requests = listenAsSupervisor(
      () => announcedUrl(this.settings),
      logger,
      () => supervisor.wake('a restart was requested'),
    );
    const watcher = flags.watch
      ? await watchModules(this.settings, () => {
          logger.info('module code changed; restarting the backend');
          supervisor.restart();
        })
      : null;
    process.exitCode = await supervisor.done;
    await Promise.all([watcher?.close(), (await inputs)?.close(), requests.close()]);
  }
}

/** DATABASE_URL, or the embedded server's once a backend has started it (until then, this throws and is retried). */
async function announcedUrl(config: Config): Promise<string> {
  if (config.databaseUrl !== null) return checkDatabaseUrl(config.databaseUrl);
  const { embeddedStatus } = await import('../../db/embedded.ts');
  const { running, server } = await embeddedStatus(config.storageDir);
  if (!running || server === null) throw new Error('the embedded database is not running yet');
  return server.url;
}
