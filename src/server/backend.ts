/**
 * One backend process, the unit the container runtime (or `ward serve`) supervises: start (the
 * reconcile runs before anything listens), serve, and on any restart channel — SIGTERM from the
 * runtime, `ward modules restart` (NOTIFY), `POST /api/v1/modules/-/restart` — stop gracefully and
 * exit 0, for the supervisor to start a fresh one that applies the new plan.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import { listenForRestart } from '../db/restart-signal.ts';
import type { Logger } from '../logger.ts';
import { startBackend, type Backend } from './server.ts';
import { watchModules } from './watcher.ts';
import { discover } from '../manifests/discover.ts';
import { diffInventories } from '../planner/drift.ts';

/** The longest the restart listener and the drift watcher wait for the first request to be answered. */
const SETUP_AFTER_MS = 100;

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
  backend = await startBackend(config, logger, {
    onRestart: () => void stop('restart requested over HTTP'),
    print,
  });
  const running = backend;
  const { port } = running.server.address() as AddressInfo;
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => void stop(signal).then(resolve);
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    running.server.once('close', () => void stop('server closed').then(resolve));
  });
  // A stop can arrive while these are being set up; whatever comes up after it is closed at once.
  const keep = async (closer: { close(): Promise<void> }) => {
    if (stopping === null) closers.push(closer);
    else await closer.close();
  };
  // Serving comes first: a restart is done when health checks pass, and setting these up (a
  // connection handshake, a directory scan) would delay the first answer.
  await firstAnswer(running.server, SETUP_AFTER_MS);
  // Independent, so set up together: the restart listener waits on the database, the watcher on
  // the disk (from the inventory the reconcile found, not a second discovery). If both fail, the
  // restart listener's error is the one reported, as when they came up one after the other.
  const started = await Promise.allSettled([
    listenForRestart(running.url, logger, () => void stop('restart requested')).then(keep),
    watchModules(config, () => void reportDrift(config, running, logger), running.reconciled.inventory).then(
      keep,
    ),
  ]);
  for (const result of started) if (result.status === 'rejected') throw result.reason;
  print(`Ward is listening on http://127.0.0.1:${port} (GET /health, pid ${process.pid})`);
  onServing();
  await stopped;
}

/** Resolves once the server has answered its first request, or after `ms` without one. */
function firstAnswer(server: Server, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      server.off('request', onRequest);
      resolve();
    };
    const onRequest = (_request: IncomingMessage, response: ServerResponse) => response.once('close', done);
    const timer = setTimeout(done, ms);
    server.once('request', onRequest);
  });
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
