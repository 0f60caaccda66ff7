/**
 * `frontend/modules.json`: the layer of every module that is installed right now and ships a
 * frontend layer. Modules scheduled for install are not listed until the restart that installs
 * them; modules scheduled for upgrade or uninstall still are, as they still run; inactive modules
 * (planner/inactive.ts) are not, as their code does not run. The backend writes
 * it at each start, once the reconcile has applied the plan; `ward modules sync-frontend` writes
 * the same file on demand.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { byName } from '../planner/graph.ts';
import { findInactive, RUNNING_STATES } from '../planner/inactive.ts';
import type { Inventory, ModuleRow } from '../planner/types.ts';

export interface FrontendModules {
  /**
   * `layer`: the layer's entry file (a manifest's folder becomes its index.js), relative to the Ward directory (`../` when the module lives outside
   * it). `url`: where the browser loads it, `/layers/<module>/<path inside the module directory>`,
   * which reaches a module wherever it lives.
   */
  modules: Array<{ name: string; version: string; layer: string; url: string }>;
}

/** The URL prefix every layer is served under. */
export const LAYERS_PREFIX = '/layers';

/**
 * A manifest's `frontend` (relative to the module directory, without `..`) as a `/`-separated
 * path with no `./` and no trailing `/`; `''` when it names the module directory itself. Pure.
 */
export function layerInModule(frontend: string): string {
  const normalized = path.posix.normalize(frontend.replaceAll('\\', '/')).replace(/\/+$/, '');
  return normalized === '.' ? '' : normalized;
}

/** The URL the browser loads a module's layer from. Pure. */
export function layerUrl(name: string, frontend: string): string {
  const inside = layerInModule(frontend);
  return `${LAYERS_PREFIX}/${encodeURIComponent(name)}/${inside.split('/').map(encodeURIComponent).join('/')}`;
}

/** Layer paths are relative to the project root with `/` separators, so the file is portable. */
export function frontendModules(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  root: string,
): FrontendModules {
  const inactive = new Set(findInactive(inventory, rows).map((entry) => entry.module));
  const modules = rows
    .filter((row) => RUNNING_STATES.has(row.state) && !inactive.has(row.name))
    .flatMap((row) => {
      const disk = inventory.modules.get(row.name);
      if (disk?.frontend == null) return [];
      const layer = path.relative(root, path.join(disk.dir, disk.frontend)).split(path.sep).join('/');
      const url = layerUrl(row.name, disk.frontend);
      return [{ name: row.name, version: row.version ?? disk.version, layer, url }];
    })
    .sort((a, b) => byName(a.name, b.name));
  return { modules };
}

/** Where modules.json lives in the configured frontend directory. */
export function frontendModulesFile(frontendDir: string): string {
  return path.join(frontendDir, 'modules.json');
}

/**
 * Writes atomically and only when the content changes; returns whether it did. The temporary file's
 * name is unique to this call, so replicas sharing the folder (each maybe pid 1 in its container)
 * never write into one another's: the last rename wins, with the same content.
 */
export async function writeFrontendModules(file: string, content: FrontendModules): Promise<boolean> {
  const text = `${JSON.stringify(content, null, 2)}\n`;
  const current = await readFile(file, 'utf8').catch(() => null);
  if (current === text) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return true;
}

/**
 * The backend's start: modules.json for the modules it runs. Replicas sharing the folder write the
 * same content, and an unchanged file is not touched. A folder the backend may not write costs only
 * the module pages, so it is a warning, not a failed start.
 */
export async function syncFrontendModules(
  settings: { frontendDir: string; root: string },
  inventory: Inventory,
  rows: readonly ModuleRow[],
  warn: (message: string) => void,
): Promise<void> {
  const file = frontendModulesFile(settings.frontendDir);
  try {
    await writeFrontendModules(file, frontendModules(inventory, rows, settings.root));
  } catch (error) {
    warn(
      `could not write ${file} (${(error as Error).message}), so module pages may be missing or out of date; ` +
        'let the backend write to WARD_FRONTEND_DIR, or run `ward modules sync-frontend` where it can',
    );
  }
}
