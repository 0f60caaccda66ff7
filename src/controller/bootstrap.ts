/**
 * SPEC §3 bootstrap rule: a module the database still counts on (any state but `uninstalled`)
 * whose code is gone from disk stops start-up, because running without it, or applying its
 * pending steps, could lose or corrupt its data. The operator restores the code or orphans it.
 */
import { WardError } from './errors.ts';
import type { Inventory, ModuleRow } from './types.ts';

export const ORPHAN_HEADING = 'orphan modules (in the database, missing from disk):';

export function findOrphans(inventory: Inventory, rows: readonly ModuleRow[]): string[] {
  return rows
    .filter((row) => row.state !== 'uninstalled' && !inventory.modules.has(row.name))
    .map((row) => row.name)
    .sort();
}

/** Throws the start-up failure when orphans exist; returns quietly otherwise. */
export function assertNoOrphans(inventory: Inventory, rows: readonly ModuleRow[]): void {
  const orphans = findOrphans(inventory, rows);
  if (orphans.length === 0) return;
  throw new WardError(
    'orphan_modules',
    [ORPHAN_HEADING, ...orphans].join('\n'),
    'restore their code (reinstall the package, or fix WARD_MODULE_PATHS), or run `ward modules orphan <name>` for each to mark it uninstalled without running its uninstall steps',
  );
}
