/**
 * `frontend/modules.json`: the layer path of every module that is installed right now
 * and ships a frontend layer. Modules scheduled for install are not listed until the restart that
 * installs them; modules scheduled for upgrade or uninstall still are, as they still run.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { byName } from '../planner/graph.ts';
import type { Inventory, ModuleRow } from '../planner/types.ts';

export interface FrontendModules {
  modules: Array<{ name: string; version: string; layer: string }>;
}

const RUNNING_STATES = new Set(['installed', 'to_upgrade', 'to_uninstall']);

/** Layer paths are relative to the project root with `/` separators, so the file is portable. */
export function frontendModules(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  root: string,
): FrontendModules {
  const modules = rows
    .filter((row) => RUNNING_STATES.has(row.state))
    .flatMap((row) => {
      const disk = inventory.modules.get(row.name);
      if (disk?.frontend == null) return [];
      const layer = path.relative(root, path.join(disk.dir, disk.frontend)).split(path.sep).join('/');
      return [{ name: row.name, version: row.version ?? disk.version, layer }];
    })
    .sort((a, b) => byName(a.name, b.name));
  return { modules };
}

/** Writes atomically and only when the content changes; returns whether it did. */
export async function writeFrontendModules(file: string, content: FrontendModules): Promise<boolean> {
  const text = `${JSON.stringify(content, null, 2)}\n`;
  const current = await readFile(file, 'utf8').catch(() => null);
  if (current === text) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
  return true;
}
