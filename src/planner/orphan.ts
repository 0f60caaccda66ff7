/**
 * The decision behind `ward modules orphan`: only a module whose code is gone may skip the
 * uninstall flow (no backup, no purge, no downgrade), because a module on disk can be uninstalled
 * properly and orphaning it would strand its tables and seed records.
 */
import { WardError } from '../errors/ward-error.ts';
import type { Inventory, ModuleRow } from './types.ts';

export type OrphanDecision = { change: true } | { change: false; state: 'uninstalled' };

export function decideOrphan(inventory: Inventory, rows: readonly ModuleRow[], name: string): OrphanDecision {
  const row = rows.find((candidate) => candidate.name === name);
  if (row === undefined)
    throw new WardError(
      'unknown_module',
      `no module named "${name}" is recorded in the database`,
      'run `ward modules list` to see the modules Ward knows',
    );
  const problem = inventory.problems.find((candidate) => candidate.module === name);
  if (problem !== undefined)
    throw new WardError(
      'module_on_disk',
      `${name} is on disk with a broken manifest, so it is not an orphan: ${problem.message} (${problem.file})`,
      'fix the manifest (`ward modules doctor` lists every problem), then restart; orphaning would strand its tables',
    );
  if (inventory.modules.has(name))
    throw new WardError(
      'module_on_disk',
      `${name} is on disk, so it is not an orphan`,
      `run \`ward modules uninstall ${name}\` to remove it with a backup, or remove its code first if it really is gone`,
    );
  return row.state === 'uninstalled' ? { change: false, state: 'uninstalled' } : { change: true };
}
