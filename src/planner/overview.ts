/**
 * The read-only views of `modules list`, `info` and `status`, joined from disk and database. The
 * CLI prints exactly these objects: as a table, or as they are with --json.
 */
import type { Category, DiskModule, Inventory, ModuleRow, ModuleState, Plan } from './types.ts';
import { PENDING_STATES } from './types.ts';

export interface ListEntry {
  name: string;
  /** The database version once installed, the disk version before. */
  version: string | null;
  state: ModuleState;
  /** null when the code is gone from disk (an orphan). */
  category: Category | null;
  depends: string[];
}

/** A list entry with what an admin page also shows: the code on disk, the last error, when the state last changed. */
export interface DetailedEntry extends ListEntry {
  /** null when the code is gone from disk (an orphan). */
  diskVersion: string | null;
  errorMessage: string | null;
  /** null for a module the database has never recorded. */
  lastStateChange: string | null;
}

export interface ModuleInfo {
  name: string;
  state: ModuleState;
  version: string | null;
  diskVersion: string | null;
  category: Category | null;
  depends: string[];
  /** The version range of each dependency it requires, from the manifest on disk. */
  requires: Record<string, string>;
  removable: boolean | null;
  migrationBranch: string | null;
  appliedRevision: string | null;
  installedAt: string | null;
  lastStateChange: string | null;
  errorMessage: string | null;
  path: string | null;
}

export interface StatusSummary {
  counts: Record<ModuleState, number>;
  pending: Array<{ name: string; state: ModuleState }>;
  errored: Array<{ name: string; state: ModuleState; errorMessage: string }>;
  /** Installed modules whose disk version differs from the database: `ward modules upgrade` applies it. */
  upgradable: Array<{ name: string; version: string; diskVersion: string }>;
}

export function listModules(inventory: Inventory, rows: readonly ModuleRow[]): ListEntry[] {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const names = new Set([...inventory.modules.keys(), ...byName.keys()]);
  return [...names].sort().map((name) => {
    const disk = inventory.modules.get(name);
    const row = byName.get(name);
    return {
      name,
      version: row?.version ?? disk?.version ?? null,
      state: row?.state ?? 'uninstalled',
      category: disk?.category ?? null,
      depends: disk?.depends ?? [],
    };
  });
}

export function listModulesInDetail(inventory: Inventory, rows: readonly ModuleRow[]): DetailedEntry[] {
  const byName = new Map(rows.map((row) => [row.name, row]));
  return listModules(inventory, rows).map((entry) => {
    const row = byName.get(entry.name);
    return {
      ...entry,
      diskVersion: inventory.modules.get(entry.name)?.version ?? null,
      errorMessage: row?.error_message ?? null,
      lastStateChange: row?.last_state_change.toISOString() ?? null,
    };
  });
}

/** null when neither disk nor database knows the name. */
export function moduleInfo(
  disk: DiskModule | undefined,
  row: ModuleRow | undefined,
  appliedRevision: string | null,
): ModuleInfo | null {
  if (disk === undefined && row === undefined) return null;
  const name = (disk?.name ?? row?.name) as string;
  return {
    name,
    state: row?.state ?? 'uninstalled',
    version: row?.version ?? null,
    diskVersion: disk?.version ?? null,
    category: disk?.category ?? null,
    depends: disk?.depends ?? [],
    requires: { ...disk?.requires },
    removable: disk?.removable ?? null,
    migrationBranch: disk === undefined ? null : disk.hasMigrationBranch ? name : null,
    appliedRevision,
    installedAt: row?.installed_at?.toISOString() ?? null,
    lastStateChange: row?.last_state_change.toISOString() ?? null,
    errorMessage: row?.error_message ?? null,
    path: disk?.dir ?? null,
  };
}

export function summarise(inventory: Inventory, rows: readonly ModuleRow[]): StatusSummary {
  const counts: Record<ModuleState, number> = {
    installed: 0,
    uninstalled: 0,
    to_install: 0,
    to_upgrade: 0,
    to_uninstall: 0,
  };
  for (const entry of listModules(inventory, rows)) counts[entry.state] += 1;
  return {
    counts,
    pending: rows
      .filter((row) => PENDING_STATES.includes(row.state))
      .map(({ name, state }) => ({ name, state })),
    errored: rows
      .filter((row) => row.error_message !== null)
      .map(({ name, state, error_message }) => ({ name, state, errorMessage: error_message as string })),
    upgradable: rows.flatMap((row) => {
      const disk = inventory.modules.get(row.name);
      return row.state === 'installed' &&
        disk !== undefined &&
        row.version !== null &&
        disk.version !== row.version
        ? [{ name: row.name, version: row.version, diskVersion: disk.version }]
        : [];
    }),
  };
}

export interface PlanSummary {
  install: number;
  upgrade: number;
  uninstall: number;
}

export function summarisePlan(plan: Plan): PlanSummary {
  const summary: PlanSummary = { install: 0, upgrade: 0, uninstall: 0 };
  for (const action of plan.actions) summary[action.kind] += 1;
  return summary;
}
