/**
 * Watches the places modules come from (official `modules/`, WARD_MODULE_PATHS folders, the
 * package root's package.json and its module packages) and calls back, debounced, when anything
 * there changes. Used by the backend to report drift and by `ward serve --watch` to restart; with
 * the settings and grants files, by `ward serve` to retry a failing start at once.
 */
import path from 'node:path';
import type { Config } from '../config.ts';
import { discover } from '../manifests/discover.ts';
import type { Inventory } from '../planner/types.ts';

const DEBOUNCE_MS = 300;

export interface ModuleWatcher {
  close(): Promise<void>;
}

/** `inventory`: what discovery just found, when the caller has it (the backend's reconcile). */
export async function watchModules(
  config: Config,
  onChange: () => void,
  inventory?: Inventory,
): Promise<ModuleWatcher> {
  inventory ??= await discover(config);
  const packageDirs = [...inventory.modules.values()]
    .filter((module) => module.dir.startsWith(path.join(config.packageRoot, 'node_modules')))
    .map((module) => module.dir);
  return watchPaths(
    [
      path.join(config.root, 'modules'),
      ...config.modulePaths,
      path.join(config.packageRoot, 'package.json'),
      ...packageDirs,
    ],
    (file) =>
      file.includes(`${path.sep}node_modules${path.sep}`) && !packageDirs.some((dir) => file.startsWith(dir)),
    onChange,
  );
}

/**
 * Everything a start reads but the database: the places modules come from, the settings files
 * (`<storage>/ward.env`, `<root>/.env`) and the grants file. `ward serve` watches them while its
 * backend fails to start, to start it again as soon as the operator fixes the cause.
 */
export async function watchStartInputs(config: Config, onChange: () => void): Promise<ModuleWatcher> {
  const files = [...config.files.map((file) => file.path), config.grantsFile.path];
  const [modules, settings] = await Promise.all([
    watchModules(config, onChange),
    watchPaths(files, () => false, onChange),
  ]);
  return {
    async close() {
      await Promise.all([modules.close(), settings.close()]);
    },
  };
}

async function watchPaths(
  targets: string[],
  ignored: (file: string) => boolean,
  onChange: () => void,
): Promise<ModuleWatcher> {
  // Loaded here, not at start-up: chokidar imports `fs` as an ES module, and Node fills that
  // namespace by reading every export of `fs`, which loads its stream and readline internals.
  const { watch } = await import('chokidar');
  const watcher = watch(targets, { ignoreInitial: true, ignored });
  let timer: NodeJS.Timeout | undefined;
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, DEBOUNCE_MS);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
