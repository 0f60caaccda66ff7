/**
 * Which modules run in this process: rows that are installed (or installed and waiting for an
 * upgrade or uninstall) whose code is on disk. Only they grant permissions, and of them only the
 * active ones (every dependency running and active) serve routes and pages.
 */
import { findInactive, RUNNING_STATES, type InactiveModule } from '../planner/inactive.ts';
import type { DiskModule, Inventory, ModuleRow } from '../planner/types.ts';

/** Installed, possibly with an upgrade or uninstall scheduled: the code runs. */
export const RUNNING: ReadonlySet<string> = RUNNING_STATES;

export interface InstalledModule {
  module: DiskModule;
  /** The version the database records as installed. */
  version: string;
}

export function installedModules(inventory: Inventory, rows: readonly ModuleRow[]): InstalledModule[] {
  return rows.flatMap((row) => {
    const module = inventory.modules.get(row.name);
    if (!RUNNING.has(row.state) || module === undefined) return [];
    return [{ module, version: row.version ?? module.version }];
  });
}

/**
 * The installed modules split into those a backend serves and the inactive ones, which lack a
 * dependency: their code does not run, and only their prefix answers (503, why).
 */
export function activeModules(
  inventory: Inventory,
  rows: readonly ModuleRow[],
): { active: InstalledModule[]; inactive: InactiveModule[] } {
  const inactive = findInactive(inventory, rows);
  const names = new Set(inactive.map((entry) => entry.module));
  const active = installedModules(inventory, rows).filter(({ module }) => !names.has(module.name));
  return { active, inactive };
}

/** Users, roles, sessions and tokens live in the base module's tables. */
export const AUTH_MODULE = 'base';
