/**
 * What one planning call looks things up in (disk modules, database rows, manifest problems,
 * dependency edges), indexed once so no lookup scans a list, and the questions both the operator's
 * requests (planner.ts) and the restart-time plan (reconcile-plan.ts) ask of it.
 *
 * A module "is present" when its row says installed, to_install or to_upgrade: installed now or
 * about to be. Present modules satisfy dependencies and are never rescheduled by another request.
 *
 * Foreign keys between module tables (`TableReference`, read from the database) hold modules
 * together like `depends` does: a table cannot be dropped while another module's table points
 * into it, so an uninstall treats the referencing module as one more dependent.
 */
import { byName } from './graph.ts';
import type { Edges } from './graph.ts';
import type { RecordedRequires } from './ranges.ts';
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
  TableReference,
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
  /** Foreign keys into the module's tables from tables of other modules or of none, sorted. */
  referencesInto: (name: string) => readonly TableReference[];
  /** Present modules, other than the module, whose tables hold foreign keys into its tables, sorted. */
  presentReferencers: Edges;
  /** Modules, other than the module, whose tables its tables hold foreign keys into, sorted. */
  referenced: Edges;
  /** The version ranges recorded when each installed module was installed or upgraded. */
  recorded: RecordedRequires;
}

export function createWorld(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  references: readonly TableReference[] = [],
  recorded: RecordedRequires = new Map(),
): World {
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
  // From present modules to any module, present or not: the restart plan asks about modules leaving.
  const presentDependents = (name: string): string[] => {
    if (dependents === undefined) {
      dependents = new Map();
      for (const module of [...inventory.modules.keys()].sort(byName)) {
        if (!isPresent(rowsByName.get(module))) continue;
        for (const dependency of withoutSelf(depends)(module)) {
          const list = dependents.get(dependency);
          if (list === undefined) dependents.set(dependency, [module]);
          else list.push(module);
        }
      }
    }
    return dependents.get(name) ?? [];
  };
  const into = Map.groupBy(
    references.filter((reference) => reference.fromModule !== reference.toModule).sort(byReference),
    (reference) => reference.toModule,
  );
  const referencesInto = (name: string): readonly TableReference[] => into.get(name) ?? [];
  const presentReferencers = (name: string): string[] =>
    [
      ...new Set(
        referencesInto(name)
          .map((reference) => reference.fromModule)
          .filter((module): module is string => module !== null && isPresent(rowsByName.get(module))),
      ),
    ].sort(byName);
  const from = Map.groupBy(
    [...into.values()].flat().filter((reference) => reference.fromModule !== null),
    (reference) => reference.fromModule as string,
  );
  const referenced = (name: string): string[] =>
    [...new Set((from.get(name) ?? []).map((reference) => reference.toModule))].sort(byName);
  return {
    modules: inventory.modules,
    rows: rowsByName,
    problems,
    depends,
    presentDependents,
    referencesInto,
    presentReferencers,
    referenced,
    recorded,
  };
}

/** The foreign keys into the module's tables from tables of `referencers` (its present referencers). */
export const referencesFrom = (
  world: World,
  name: string,
  referencers: readonly string[],
): TableReference[] =>
  world
    .referencesInto(name)
    .filter((reference) => reference.fromModule !== null && referencers.includes(reference.fromModule));

/** Referencing table, then constraint: the order refusals list foreign keys in. */
export const byReference = (a: TableReference, b: TableReference): number =>
  byName(a.fromTable, b.fromTable) || byName(a.constraint, b.constraint) || byName(a.toTable, b.toTable);

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
