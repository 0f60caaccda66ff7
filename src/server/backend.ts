/**
 * One backend process, the unit the container runtime (or `ward serve`) supervises: start (the
 * reconcile runs before anything listens), serve, and on any restart channel — SIGTERM from the
 * runtime, `ward modules restart` (NOTIFY), `POST /api/v1/modules/-/restart` — stop gracefully and
 * exit 0, for the supervisor to start a fresh one that applies the new plan.
 */
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import { announceRefusal, listenForRestart, type RestartRequest } from '../db/restart-signal.ts';
import { watchDatabase } from '../db/watchdog.ts';
import type { Logger } from '../logger.ts';
import { startBackend, type Backend } from './server.ts';
import { watchModules } from './watcher.ts';
import { discover } from '../manifests/discover.ts';
import { diffInventories } from '../planner/drift.ts';
import type { Finding } from '../planner/preflight.ts';
import { isWardMessage } from './spare.ts';

/** `onServing`: called once the backend answers and its restart listener and drift watcher run. */
export async function runBackend(
  config: Config,
  logger: Logger,
  print: (line: string) => void,
  onServing: () => void = () => undefined,
): Promise<void> {
  const closers: Array<{ close(): Promise<void> }> = [];
  let stopping: Promise<void> | null = null;
  let backend: Backend | null = null;
  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'stopping gracefully');
      await Promise.all(closers.map((closer) => closer.close()));
      await backend?.close();
    })();
    return stopping;
  };
  // Registered before the start, which can take a while (the reconcile): a change `ward serve
  // --watch` reports meanwhile would otherwise reach no listener and be lost. It is acted on,
  // once, as soon as this backend serves.
  let supervisorRestart: (() => void) | null = null;
  let requestedEarly = false;
  process.on('message', (message) => {
    if (!isWardMessage(message, 'restart')) return;
    if (supervisorRestart === null) requestedEarly = true;
    else supervisorRestart();
  });
  backend = await startBackend(config, logger, {
    onRestart: () => void stop('restart requested over HTTP'),
    print,
  });
  const running = backend;
  const bound = boundAddress(running.server.address() as AddressInfo);
  /**
   * A restart asked over NOTIFY (`ward modules restart`, which may run on another host with other
   * files) or by the supervisor (`ward serve --watch`): unless forced, the next start's checks run
   * here first, and while they find anything this backend says why and keeps serving.
   */
  const requested = async (by: string, request: RestartRequest) => {
    if (!request.force) {
      const findings = await running.preflight().catch((error: unknown) => {
        logger.error({ err: error }, 'could not check what the next start would find');
        return [checkFailed(error)];
      });
      if (findings.length > 0) {
        logger.warn(
          { findings },
          `restart requested ${by} refused: the next start would fail; still serving`,
        );
        await announceRefusal(running.knex, findings).catch((error: unknown) =>
          logger.warn({ err: error }, 'could not announce the refused restart'),
        );
        return;
      }
    }
    void stop(`restart requested ${by}`);
  };
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => void stop(signal).then(resolve);
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    running.server.once('close', () => void stop('server closed').then(resolve));
  });
  supervisorRestart = () => void requested('by the supervisor', { force: false, backends: null });
  if (requestedEarly) supervisorRestart();
  // A stop can arrive while these are being set up; whatever comes up after it is closed at once.
  const keep = async (closer: { close(): Promise<void> }) => {
    if (stopping === null) closers.push(closer);
    else await closer.close();
  };
  // Serving comes first: a restart is done when health checks pass, and setting these up (a
  // connection handshake, a directory scan) would delay the first answer.
  await running.firstAnswered;
  // Then knex, which the start did without (src/db/lazy-knex.ts): requests but /health wait for it,
  // and the database watch below reads its pool. Loading it is synchronous work (CommonJS) that
  // would hold the first answer back if it began as soon as the server listened.
  // Tried until it opens: the server already answers /health, so an exit here would take a
  // healthy-looking backend down (a restart near max_connections fails its first connect until
  // the old backend has drained).
  for (let attempt = 0; ; attempt++) {
    try {
      await running.loadKnex();
      break;
    } catch (error) {
      if (stopping !== null) return stopped;
      const waitMs = Math.min(10_000, 250 * 2 ** attempt);
      logger.warn({ err: error, waitMs }, 'could not open the database pool; trying again');
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
  // Starts the embedded server again if it stops under this backend; logs an external one's outage.
  const storageDir = config.databaseUrl === null ? config.storageDir : null;
  await keep(watchDatabase({ knex: running.knex, url: running.url, storageDir, logger }));
  // Independent, so set up together: the restart listener waits on the database, the watcher on
  // the disk (from the inventory the reconcile found, not a second discovery). If both fail, the
  // restart listener's error is the one reported, as when they came up one after the other.
  const started = await Promise.allSettled([
    listenForRestart(running.url, logger, (request) => void requested('over NOTIFY', request)).then(keep),
    watchModules(config, () => void reportDrift(config, running, logger), running.reconciled.inventory).then(
      keep,
    ),
  ]);
  for (const result of started) if (result.status === 'rejected') throw result.reason;
  if (running.metrics !== null) {
    logger.info({ url: running.metrics.url }, 'serving metrics');
    print(`Metrics are served at ${running.metrics.url}`);
  }
  logger.info(bound, 'listening');
  const where = bound.everyInterface ? 'every interface; ' : '';
  print(`Ward is listening on ${bound.url} (${where}GET /health, pid ${process.pid})`);
  onServing();
  await stopped;
}

/**
 * Pure: where the server really listens, as a URL (an IPv6 address in brackets), and whether that
 * is every interface (0.0.0.0 or ::), which the operator should know they asked for.
 */
export function boundAddress(address: AddressInfo): { url: string; everyInterface: boolean } {
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    everyInterface: address.address === '0.0.0.0' || address.address === '::',
  };
}

/** Logs drift once per distinct difference and keeps it where /health reads it. */
async function reportDrift(config: Config, backend: Backend, logger: Logger): Promise<void> {
  const drift = diffInventories(backend.reconciled.inventory, await discover(config));
  if (JSON.stringify(drift) === JSON.stringify(backend.drift.current)) return;
  backend.drift.current = drift;
  if (drift.length === 0) logger.info('module code on disk matches the running backend again');
  else
    logger.warn(
      { drift },
      'module code on disk differs from the running backend; a restart or `ward modules upgrade` will deal with it',
    );
}

/** The preflight itself failed (the database went away, say): the restart is refused, not risked. */
function checkFailed(error: unknown): Finding {
  return {
    code: 'preflight_failed',
    message: `could not check what the next start would find: ${error instanceof Error ? error.message : String(error)}`,
    hint: 'see the backend log; `ward modules restart --force` restarts without the check',
  };
}
