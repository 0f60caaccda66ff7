/**
 * The warm spare: `ward serve` keeps one backend process that has loaded Ward's code and its
 * libraries but done nothing else, and hands it the next start. Loading code is most of a cold
 * start (about 100 of 160 ms with 50 modules), so a restart through the supervisor costs what the
 * start itself does: connect, reconcile, mount, listen. The spare holds no connection and has read
 * no module: module code, manifests and the plan are read only once it is told to start.
 *
 * This file is both sides of the IPC exchange: the messages, the spare's wait, and the check that
 * decides whether a spare's code is still the code on disk.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Set by the supervisor on the process it starts as a spare. */
export const SPARE_ENV = 'WARD_SPARE';

/** What a backend started by the supervisor tells it. */
export type FromBackend = { ward: 'spare-ready' } | { ward: 'serving' };
/** What the supervisor tells a spare. */
export type ToSpare = { ward: 'start' };
/** What the supervisor tells a backend: restart, if the next start would not refuse (`ward serve --watch`). */
export type ToBackend = { ward: 'restart' };

/**
 * A backend's exit status that no restart can help: its address is taken (another `ward serve`, or
 * anything else, listens there). The supervisor stops instead of starting it again and again.
 */
export const EXIT_ADDRESS_TAKEN = 78;

export const isWardMessage = (message: unknown, kind: string): boolean =>
  typeof message === 'object' && message !== null && (message as { ward?: unknown }).ward === kind;

/**
 * In a process started as a spare: load what a start loads lazily, say so, and resolve when told to
 * start. SIGTERM before that ends the process (Node's default), which is how a spare is discarded.
 */
export async function waitAsSpare(): Promise<void> {
  Reflect.deleteProperty(process.env, SPARE_ENV);
  const channel = process.channel;
  if (channel === undefined || !process.connected) return;
  // Ctrl-C in a terminal signals the whole process group: the supervisor ends its spare itself.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  // What a start imports only when it needs it: the pool (openDatabase), the applier (a plan with
  // work in it), the drift watcher and the embedded server (no DATABASE_URL).
  await Promise.all([
    import('knex'),
    import('../applier/apply.ts'),
    import('chokidar'),
    import('../db/embedded.ts'),
  ]);
  // The channel is otherwise only a lifeline that must not keep the process alive (backend-main.ts);
  // here it is the one thing the process waits for.
  channel.ref();
  await new Promise<void>((resolve) => {
    const onMessage = (message: unknown) => {
      if (!isWardMessage(message, 'start')) return;
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
    process.send?.({ ward: 'spare-ready' } satisfies FromBackend);
  });
  process.off('SIGINT', ignore);
  channel.unref();
}

/**
 * Whether the code a spare loaded may differ from the code on disk: any file of Ward's own source,
 * of its bundle in build/ or of the validators built at install in generated/ (or one of those
 * folders: a file added or removed), its package.json or its installed dependencies
 * (npm rewrites node_modules/.package-lock.json on every install) changed at or after `since` (ms
 * since the epoch). It reads the inode change time, which every write, rename or copy sets to the
 * present even when the tool keeps the release's modification times (`rsync -a`, `tar x`, `cp -p`).
 * Module code is not included: a spare has not loaded any.
 */
export async function codeChangedSince(root: string, since: number): Promise<boolean> {
  // src/, generated/ (the validators built at install, src/generated.ts) and build/ (the bundle
  // every backend runs, src/server/backend-bundle.ts).
  const dirs = [path.join(root, 'src'), path.join(root, 'generated'), path.join(root, 'build')];
  const sources = await Promise.all(
    dirs.map(async (dir) =>
      [dir, ...(await readdir(dir, { recursive: true }).catch(() => []))].map((file) =>
        path.resolve(dir, file),
      ),
    ),
  );
  const files = [
    path.join(root, 'package.json'),
    path.join(root, 'node_modules', '.package-lock.json'),
    ...sources.flat(),
  ];
  const times = await Promise.all(
    files.map((file) =>
      stat(file).then(
        ({ ctimeMs }) => ctimeMs,
        () => 0,
      ),
    ),
  );
  return times.some((time) => time >= since);
}
