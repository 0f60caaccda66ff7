/**
 * Watches the places modules come from (official `modules/`, WARD_MODULE_PATHS folders, the
 * package root's package.json and its module packages) and calls back, debounced, when anything
 * there changes. Used by the backend to report drift and by `ward serve --watch` to restart.
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
  const targets = [
    path.join(config.root, 'modules'),
    ...config.modulePaths,
    path.join(config.packageRoot, 'package.json'),
    ...packageDirs,
  ];
  // Loaded here, not at start-up: chokidar imports `fs` as an ES module, and Node fills that
  // namespace by reading every export of `fs`, which loads its stream and readline internals.
  const { watch } = await import('chokidar');
  const watcher = watch(targets, {
    ignoreInitial: true,
    ignored: (file) =>
      file.includes(`${path.sep}node_modules${path.sep}`) && !packageDirs.some((dir) => file.startsWith(dir)),
  });
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
