/**
 * Watches the places modules come from (official `modules/`, WARD_MODULE_PATHS folders, the
 * package root's package.json and its module packages) and calls back, debounced, when anything
 * there changes. Used by the backend to report drift and by `ward serve --watch` to restart.
 */
import path from 'node:path';
import { watch } from 'chokidar';
import type { Config } from './config.ts';
import { discover } from './controller/discover.ts';

const DEBOUNCE_MS = 300;

export interface ModuleWatcher {
  close(): Promise<void>;
}

export async function watchModules(config: Config, onChange: () => void): Promise<ModuleWatcher> {
  const inventory = await discover(config);
  const packageDirs = [...inventory.modules.values()]
    .filter((module) => module.dir.startsWith(path.join(config.packageRoot, 'node_modules')))
    .map((module) => module.dir);
  const targets = [
    path.join(config.root, 'modules'),
    ...config.modulePaths,
    path.join(config.packageRoot, 'package.json'),
    ...packageDirs,
  ];
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
