/**
 * The bootstrap rule: a module the database still counts on (any state but `uninstalled`)
 * whose code is gone from disk stops start-up, because running without it, or applying its
 * pending steps, could lose or corrupt its data. The operator restores the code or orphans it.
 * Likewise a table an installed module's migrations created that is gone from the database: the
 * database was restored in part or changed by hand, and serving or migrating on it would be a guess.
 */
import { WardError } from '../errors/ward-error.ts';
import type { Inventory, MissingTable, ModuleRow } from './types.ts';

export const ORPHAN_HEADING = 'orphan modules (in the database, missing from disk):';

/** Counted on by the database and missing from disk; a module whose code is there but broken is not one. */
export function findOrphans(inventory: Inventory, rows: readonly ModuleRow[]): string[] {
  return unusable(inventory, rows).filter((name) => !brokenOnDisk(inventory, name));
}

/** Names the database counts on that discovery could not use: gone, or on disk with manifest problems. */
function unusable(inventory: Inventory, rows: readonly ModuleRow[]): string[] {
  return rows
    .filter((row) => row.state !== 'uninstalled' && !inventory.modules.has(row.name))
    .map((row) => row.name)
    .sort();
}

const brokenOnDisk = (inventory: Inventory, name: string): boolean =>
  inventory.problems.some((problem) => problem.module === name);

/**
 * The start-up failure for modules the database counts on that discovery could not use, or null.
 * Also what a restart's preflight (preflight.ts) reports, so the two never disagree.
 */
export function unusableModulesRefusal(inventory: Inventory, rows: readonly ModuleRow[]): WardError | null {
  const broken = unusable(inventory, rows).filter((name) => brokenOnDisk(inventory, name));
  // Checked first: its fix is to repair the code on disk, never to orphan the module.
  if (broken.length > 0)
    return new WardError(
      'modules_broken_on_disk',
      [
        'modules the database counts on whose code on disk Ward cannot use:',
        ...inventory.problems
          .filter((problem) => problem.module !== null && broken.includes(problem.module))
          .map(
            (problem) =>
              `${problem.module}: ${problem.file}${problem.path === '/' ? '' : ` ${problem.path}`}: ${problem.message}`,
          ),
      ].join('\n'),
      'fix those manifests (`ward modules doctor` lists every problem), then restart; do not orphan these modules: their code is there',
    );
  const orphans = findOrphans(inventory, rows);
  if (orphans.length === 0) return null;
  return new WardError(
    'orphan_modules',
    [ORPHAN_HEADING, ...orphans].join('\n'),
    'restore their code (reinstall the package, or fix WARD_MODULE_PATHS), or run `ward modules orphan <name>` for each to mark it uninstalled without running its uninstall steps',
  );
}

/** Throws the start-up failure when orphans exist; returns quietly otherwise. */
export function assertNoOrphans(inventory: Inventory, rows: readonly ModuleRow[]): void {
  const refusal = unusableModulesRefusal(inventory, rows);
  if (refusal !== null) throw refusal;
}

/** The start-up failure when installed modules lost tables, or null. */
export function missingTablesRefusal(missing: readonly MissingTable[]): WardError | null {
  if (missing.length === 0) return null;
  const byModule = Map.groupBy(missing, (table) => table.module_name);
  return new WardError(
    'tables_missing',
    [
      'installed modules whose tables are gone from the database:',
      ...[...byModule].map(([module, tables]) => `${module}: ${tables.map((t) => t.table_name).join(', ')}`),
    ].join('\n'),
    'the database no longer matches what Ward recorded (restored in part, or changed by hand): restore it from a backup; Ward will not start on it',
  );
}

/** Throws the start-up failure when installed modules lost tables; returns quietly otherwise. */
export function assertTablesPresent(missing: readonly MissingTable[]): void {
  const refusal = missingTablesRefusal(missing);
  if (refusal !== null) throw refusal;
}
