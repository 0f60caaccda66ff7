/**
 * What one planning call looks things up in (disk modules, database rows, manifest problems,
 * dependency edges), indexed once so no lookup scans a list, and the questions both the operator's
 * requests (planner.ts) and the restart-time plan (reconcile-plan.ts) ask of it.
 *
 * A module "is present" when its row says installed, to_install or to_upgrade: installed now or
 * about to be. Present modules satisfy dependencies and are never rescheduled by another request.
 */
import { byName, invert } from './graph.ts';
import type { Edges } from './graph.ts';
import type {
  Action,
  ActionKind,
  DiskModule,
  Inventory,
  ManifestProblem,
  ModuleRow,
  ModuleState,
  Reason,
  Refusal,
} from './types.ts';

const PRESENT_STATES: ReadonlySet<ModuleState> = new Set(['installed', 'to_install', 'to_upgrade']);

export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/** Everything one call to `plan` looks things up in. */
export interface World {
  modules: ReadonlyMap<string, DiskModule>;
  rows: ReadonlyMap<string, ModuleRow>;
  problems: ReadonlyMap<string, ManifestProblem[]>;
  /** Disk `depends`, deduplicated and sorted; empty when the module is not on disk. */
  depends: Edges;
  /** Present modules on disk whose `depends` name the module, sorted. */
  presentDependents: Edges;
}

export function createWorld(inventory: Inventory, rows: readonly ModuleRow[]): World {
  const problems = Map.groupBy(
    inventory.problems.filter((problem) => problem.module !== null),
    (problem) => problem.module as string,
  );
  const rowsByName = new Map(rows.map((row) => [row.name, row]));
  const dependsCache = new Map<string, string[]>();
  const depends = (name: string): string[] => {
    let cached = dependsCache.get(name);
    if (cached === undefined) {
      cached = [...new Set(inventory.modules.get(name)?.depends ?? [])].sort(byName);
      dependsCache.set(name, cached);
    }
    return cached;
  };
  let dependents: Map<string, string[]> | undefined;
  const presentDependents = (name: string): string[] => {
    dependents ??= invert(
      [...inventory.modules.keys()].filter((module) => isPresent(rowsByName.get(module))),
      withoutSelf(depends),
    );
    return dependents.get(name) ?? [];
  };
  return { modules: inventory.modules, rows: rowsByName, problems, depends, presentDependents };
}

/**
 * A module that lists itself in `depends` cannot be what keeps itself installed, nor order its own
 * removal, so removals ignore self-edges; installs still refuse them as a cycle.
 */
export const withoutSelf =
  (depends: Edges): Edges =>
  (name) =>
    depends(name).filter((dependency) => dependency !== name);

export const isPresent = (row: ModuleRow | undefined): boolean =>
  row !== undefined && PRESENT_STATES.has(row.state);

export function manifestRefusal(world: World, name: string): Refusal | null {
  const problems = world.problems.get(name);
  return problems === undefined ? null : { code: 'manifest_error', module: name, problems };
}

/**
 * The module's code, or why the request cannot use it. A row that is not `uninstalled` makes the
 * module known even with its code gone, and the fix for that is `orphan`, not a package name.
 */
export function onDisk(world: World, name: string): Checked<DiskModule> {
  const manifest = manifestRefusal(world, name);
  if (manifest !== null) return { ok: false, refusal: manifest };
  const disk = world.modules.get(name);
  if (disk !== undefined) return { ok: true, value: disk };
  const row = world.rows.get(name);
  const known = row !== undefined && row.state !== 'uninstalled';
  return { ok: false, refusal: { code: known ? 'not_on_disk' : 'unknown_module', module: name } };
}

export function action(world: World, kind: ActionKind, module: string, reason: Reason): Action {
  const fromVersion = world.rows.get(module)?.version ?? null;
  const toVersion = kind === 'uninstall' ? null : (world.modules.get(module)?.version ?? null);
  return { kind, module, fromVersion, toVersion, reason };
}

/** A broken manifest says more than "not found", so it wins when the dependency has one. */
export function unusableDependency(world: World, needer: string, dependency: string): Refusal | null {
  const manifest = manifestRefusal(world, dependency);
  if (manifest !== null) return manifest;
  if (world.modules.has(dependency)) return null;
  return { code: 'missing_dependency', module: needer, dependency };
}
