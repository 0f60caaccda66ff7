/**
 * The backend process's own code, without the CLI framework, run from the backend's bundle
 * (src/server/bundle-entry.ts): what `ward serve` spawns and what `ward backend`, a container's
 * command, runs, so that a start does not pay for loading oclif. Errors are rendered the way the
 * CLI renders them: message and hint, exit 1, no stack trace for an expected failure.
 */
import { runBackend } from './backend.ts';
import { applyModuleSettings, loadConfig } from '../config.ts';
import { BACKEND_OUTPUT, reportFailure } from './failure.ts';
import { createLogger } from '../logger.ts';
import { parseLogLevel } from '../config/backend-settings.ts';
import { isWardError } from '../errors/ward-error.ts';
import { EXIT_ADDRESS_TAKEN, SPARE_ENV, waitAsSpare, type FromBackend } from './spare.ts';

// Started by `ward serve`: if the supervisor dies (even by SIGKILL), its IPC channel closes; stop
// gracefully rather than live on as an orphan nobody supervises. The channel must not by itself
// keep this process alive.
if (process.channel !== undefined) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

// Started as the supervisor's warm spare: everything above is loaded; wait to be needed.
if (process.env[SPARE_ENV] === '1') await waitAsSpare();

try {
  // Read now, not when a spare was spawned: a restart picks up an edited settings file.
  const config = loadConfig();
  const logger = createLogger(parseLogLevel(config));
  for (const warning of config.warnings) logger.warn(warning);
  applyModuleSettings(config);
  await runBackend(
    config,
    logger,
    (line) => process.stdout.write(`${line}\n`),
    // Tells the supervisor this backend is up, so it prepares a spare for the next start.
    () => {
      if (process.connected) process.send?.({ ward: 'serving' } satisfies FromBackend);
    },
  );
} catch (caught) {
  const rendered = reportFailure(caught, false, BACKEND_OUTPUT);
  if (rendered === null) throw caught;
  // Any failure to start is exit 1, whatever the error's CLI exit code. Under the supervisor (its
  // IPC channel), an address another process holds is told apart: starting again cannot help, so
  // the supervisor gives up. `ward backend` on its own keeps exit 1 there too.
  const underSupervisor = process.send !== undefined;
  process.exitCode =
    underSupervisor && isWardError(caught) && caught.code === 'port_in_use' ? EXIT_ADDRESS_TAKEN : 1;
}
