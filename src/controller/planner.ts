/**
 * The planner: what disk holds, what the database records and what the operator asks for, in;
 * an ordered plan or a refusal, out. Pure: no knex, no fs, no clock. The CLI calls it to decide
 * which `to_*` states to write, the controller calls it at restart (`reconcile`) to decide what to
 * apply; both render refusals through `refusals.ts`.
 *
 * A module "is present" when its row says installed, to_install or to_upgrade: installed now or
 * about to be. Present modules satisfy dependencies and are never rescheduled by another request.
 */
import { byName, cyclicComponents, findCycle, invert, reach, topologicalOrder } from './graph.ts';
import type { Edges } from './graph.ts';
import type {
  Action,
  ActionKind,
  DiskModule,
  Inventory,
  ManifestProblem,
  ModuleRow,
  ModuleState,
  Plan,
  PlanResult,
  Reason,
  Refusal,
  Request,
} from './types.ts';

const PRESENT_STATES: ReadonlySet<ModuleState> = new Set(['installed', 'to_install', 'to_upgrade']);

type Checked<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/** Everything one call to `plan` looks things up in, indexed once so no lookup scans a list. */
interface World {
  modules: ReadonlyMap<string, DiskModule>;
  rows: ReadonlyMap<string, ModuleRow>;
  problems: ReadonlyMap<string, ManifestProblem[]>;
  /** Disk `depends`, deduplicated and sorted; empty when the module is not on disk. */
  depends: Edges;
  /** Present modules on disk whose `depends` name the module, sorted. */
  presentDependents: Edges;
}

export function plan(inventory: Inventory, rows: readonly ModuleRow[], request: Request): PlanResult {
  const world = createWorld(inventory, rows);
  switch (request.kind) {
    case 'install':
      return planInstall(world, request.name);
    case 'upgrade':
      return planUpgrade(world, request.name);
    case 'uninstall':
      return planUninstall(world, request.name, request);
    case 'reconcile':
      return { ok: true, plan: planReconcile(world) };
  }
}

function createWorld(inventory: Inventory, rows: readonly ModuleRow[]): World {
  const problems = new Map<string, ManifestProblem[]>();
  for (const problem of inventory.problems) {
    if (problem.module === null) continue;
    problems.set(problem.module, [...(problems.get(problem.module) ?? []), problem]);
  }
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
const withoutSelf =
  (depends: Edges): Edges =>
  (name) =>
    depends(name).filter((dependency) => dependency !== name);

const isPresent = (row: ModuleRow | undefined): boolean => row !== undefined && PRESENT_STATES.has(row.state);

const refuse = (refusal: Refusal): PlanResult => ({ ok: false, refusal });

const planOf = (actions: Action[]): PlanResult => ({
  ok: true,
  plan: { actions, unchanged: [], blocked: [] },
});

const unchanged = (module: string, state: ModuleState): PlanResult => ({
  ok: true,
  plan: { actions: [], unchanged: [{ module, state }], blocked: [] },
});

function manifestRefusal(world: World, name: string): Refusal | null {
  const problems = world.problems.get(name);
  return problems === undefined ? null : { code: 'manifest_error', module: name, problems };
}

/**
 * The module's code, or why the request cannot use it. A row that is not `uninstalled` makes the
 * module known even with its code gone, and the fix for that is `orphan`, not a package name.
 */
function onDisk(world: World, name: string): Checked<DiskModule> {
  const manifest = manifestRefusal(world, name);
  if (manifest !== null) return { ok: false, refusal: manifest };
  const disk = world.modules.get(name);
  if (disk !== undefined) return { ok: true, value: disk };
  const row = world.rows.get(name);
  const known = row !== undefined && row.state !== 'uninstalled';
  return { ok: false, refusal: { code: known ? 'not_on_disk' : 'unknown_module', module: name } };
}

function action(world: World, kind: ActionKind, module: string, reason: Reason): Action {
  const fromVersion = world.rows.get(module)?.version ?? null;
  const toVersion = kind === 'uninstall' ? null : (world.modules.get(module)?.version ?? null);
  return { kind, module, fromVersion, toVersion, reason };
}

/**
 * Installing a module that is `to_uninstall` cancels the uninstall by scheduling an install, not by
 * flipping the row back to `installed`: a crash may already have run some uninstall steps (backup,
 * hook, seed purge), and the install steps are idempotent, so re-running them is harmless on an
 * intact module and repairs a half-uninstalled one.
 */
function planInstall(world: World, name: string): PlanResult {
  const disk = onDisk(world, name);
  if (!disk.ok) return refuse(disk.refusal);
  const row = world.rows.get(name);
  if (row !== undefined && isPresent(row)) return unchanged(name, row.state);
  return scheduleForward(world, name, 'install', 'dependency');
}

/**
 * Any difference between disk and database versions is an upgrade, a lower disk version included:
 * SPEC says an upgrade is possible "when they differ", and the disk is what will run, so the
 * database must follow it. Versions compare as strings: any change to the declared version counts.
 */
function planUpgrade(world: World, name: string): PlanResult {
  const disk = onDisk(world, name);
  if (!disk.ok) return refuse(disk.refusal);
  const row = world.rows.get(name);
  if (row?.state === 'to_upgrade') return unchanged(name, row.state);
  if (row?.state !== 'installed')
    return refuse({ code: 'not_installed', module: name, state: row?.state ?? 'uninstalled' });
  if (disk.value.version === row.version)
    return refuse({ code: 'already_at_version', module: name, version: disk.value.version });
  return scheduleForward(world, name, 'upgrade', 'new_dependency');
}

/** `root` and every dependency it needs that is not present, dependencies first. */
function scheduleForward(
  world: World,
  root: string,
  kind: 'install' | 'upgrade',
  rootDependency: 'dependency' | 'new_dependency',
): PlanResult {
  const chain = collectChain(world, root, rootDependency);
  if (!chain.ok) return refuse(chain.refusal);
  const ordered = topologicalOrder(chain.value.keys(), world.depends);
  if (!ordered.ok) return refuse({ code: 'dependency_cycle', path: ordered.cycle });
  return planOf(
    ordered.order.map((module) =>
      action(world, module === root ? kind : 'install', module, chain.value.get(module)!),
    ),
  );
}

/**
 * Breadth-first from `root` through dependencies that are not present, stopping at present ones:
 * they are already satisfied and their own dependencies are the doctor's business. Names are
 * visited in order, so a dependency's reason is the nearest module that needs it.
 */
function collectChain(
  world: World,
  root: string,
  rootDependency: 'dependency' | 'new_dependency',
): Checked<Map<string, Reason>> {
  const chain = new Map<string, Reason>([[root, { kind: 'requested' }]]);
  const queue = [root];
  for (let at = 0; at < queue.length; at++) {
    const needer = queue[at]!;
    for (const dependency of world.depends(needer)) {
      if (chain.has(dependency) || isPresent(world.rows.get(dependency))) continue;
      const refusal = unusableDependency(world, needer, dependency);
      if (refusal !== null) return { ok: false, refusal };
      chain.set(dependency, { kind: needer === root ? rootDependency : 'dependency', of: needer });
      queue.push(dependency);
    }
  }
  return { ok: true, value: chain };
}

/** A broken manifest says more than "not found", so it wins when the dependency has one. */
function unusableDependency(world: World, needer: string, dependency: string): Refusal | null {
  const manifest = manifestRefusal(world, dependency);
  if (manifest !== null) return manifest;
  if (world.modules.has(dependency)) return null;
  return { code: 'missing_dependency', module: needer, dependency };
}

/**
 * A `to_install` module is uninstalled like an installed one: its install may have run partly,
 * and the uninstall steps are idempotent, so they clean up whatever it left behind.
 */
function planUninstall(
  world: World,
  name: string,
  options: { force: boolean; cascade: boolean },
): PlanResult {
  const manifest = manifestRefusal(world, name);
  if (manifest !== null) return refuse(manifest);
  const row = world.rows.get(name);
  if (row === undefined && !world.modules.has(name)) return refuse({ code: 'unknown_module', module: name });
  if (row === undefined || !isPresent(row)) return unchanged(name, row?.state ?? 'uninstalled');
  const disk = onDisk(world, name);
  if (!disk.ok) return refuse(disk.refusal);
  const removal = removalRefusal(disk.value, options.force);
  if (removal !== null) return refuse(removal);
  const dependents = world.presentDependents(name);
  if (dependents.length > 0 && !options.force && !options.cascade)
    return refuse({ code: 'required_by', module: name, dependents: [...dependents] });
  if (!options.cascade) return planOf([action(world, 'uninstall', name, { kind: 'requested' })]);
  return planCascade(world, name, options.force);
}

/** SPEC §3 rules 1 and 2, in the order that makes `--force` matter least: a legacy module never goes. */
function removalRefusal(disk: DiskModule, force: boolean): Refusal | null {
  if (!disk.hasMigrationBranch) return { code: 'no_migration_branch', module: disk.name };
  if (!disk.removable && !force) return { code: 'not_removable', module: disk.name };
  return null;
}

/** `root` and every present module that needs it, transitively; each must be removable itself. */
function planCascade(world: World, root: string, force: boolean): PlanResult {
  const reachedBy = reach(root, world.presentDependents);
  for (const dependent of [...reachedBy.keys()].sort(byName)) {
    const refusal = removalRefusal(world.modules.get(dependent)!, force);
    if (refusal !== null) return refuse(refusal);
  }
  const doomed = new Set([root, ...reachedBy.keys()]);
  const ordered = topologicalOrder(doomed, world.presentDependents);
  if (!ordered.ok) return refuse({ code: 'dependency_cycle', path: [...ordered.cycle].reverse() });
  return planOf(
    ordered.order.map((module) => {
      const reason: Reason =
        module === root ? { kind: 'requested' } : { kind: 'dependent', of: reachedBy.get(module)! };
      return action(world, 'uninstall', module, reason);
    }),
  );
}

/**
 * Restart time: apply every pending row that can be applied and set the others aside with why.
 * Uninstalls run first, dependents before their dependencies, so nothing that stays loses a
 * dependency mid-run; then installs and upgrades, dependencies first. Installed rows are never
 * touched. A `to_upgrade` row whose disk version equals the database one still gets its upgrade
 * (re-run seeds, `post_upgrade`): refusing would leave it pending forever.
 */
function planReconcile(world: World): Plan {
  const pending = (states: ModuleState[]): string[] =>
    [...world.rows.values()].filter((row) => states.includes(row.state)).map((row) => row.name);
  const removal = settle(pending(['to_uninstall']), withoutSelf(world.depends), 'dependents_first', (name) =>
    removalBlocker(world, name),
  );
  const forwardNames = pending(['to_install', 'to_upgrade']);
  const forwardSet = new Set(forwardNames);
  const forward = settle(forwardNames, world.depends, 'dependencies_first', (name) =>
    forwardBlocker(world, name, forwardSet),
  );
  const actions = [
    ...removal.order.map((name) => action(world, 'uninstall', name, { kind: 'pending' })),
    ...forward.order.map((name) =>
      action(world, world.rows.get(name)?.state === 'to_upgrade' ? 'upgrade' : 'install', name, {
        kind: 'pending',
      }),
    ),
  ];
  const blocked = [...removal.blocked, ...forward.blocked]
    .map(([module, refusal]) => ({ module, refusal }))
    .sort((a, b) => byName(a.module, b.module));
  return { actions, unchanged: [], blocked };
}

/** Why a pending uninstall cannot run on its own account. `removable` was settled by `--force` when it was scheduled. */
function removalBlocker(world: World, name: string): Refusal | null {
  const disk = onDisk(world, name);
  if (!disk.ok) return disk.refusal;
  return disk.value.hasMigrationBranch ? null : { code: 'no_migration_branch', module: name };
}

/** Why a pending install or upgrade cannot run on its own account; pending dependencies are `settle`'s job. */
function forwardBlocker(world: World, name: string, forward: ReadonlySet<string>): Refusal | null {
  const disk = onDisk(world, name);
  if (!disk.ok) return disk.refusal;
  for (const dependency of world.depends(name)) {
    if (forward.has(dependency)) continue;
    const row = world.rows.get(dependency);
    if (row?.state === 'installed') continue;
    const refusal = unusableDependency(world, name, dependency);
    if (refusal !== null) return refusal;
    return { code: 'not_installed', module: dependency, state: row?.state ?? 'uninstalled' };
  }
  return null;
}

/**
 * Splits pending `names` into an order to apply and the blocked ones. Blocked: those with an
 * intrinsic refusal, those on a dependency cycle, and then, transitively, everything that would
 * have to run after a blocked one (a dependent of a blocked install; a dependency of a blocked
 * uninstall, which the blocked module still needs).
 */
function settle(
  names: string[],
  depends: Edges,
  direction: 'dependencies_first' | 'dependents_first',
  intrinsic: (name: string) => Refusal | null,
): { order: string[]; blocked: Map<string, Refusal> } {
  const members = new Set(names);
  const dependsOn: Edges = (name) => depends(name).filter((dependency) => members.has(dependency));
  const dependents = invert(members, dependsOn);
  const dependentsOf: Edges = (name) => dependents.get(name) ?? [];
  const before = direction === 'dependencies_first' ? dependsOn : dependentsOf;
  const after = direction === 'dependencies_first' ? dependentsOf : dependsOn;

  const blocked = new Map<string, Refusal>();
  for (const name of [...members].sort(byName)) {
    const refusal = intrinsic(name);
    if (refusal !== null) blocked.set(name, refusal);
  }
  for (const component of cyclicComponents(members, dependsOn)) {
    const path = findCycle(new Set(component), dependsOn)!;
    for (const name of path) if (!blocked.has(name)) blocked.set(name, { code: 'dependency_cycle', path });
  }
  const queue = [...blocked.keys()].sort(byName);
  for (let at = 0; at < queue.length; at++) {
    const blocker = queue[at]!;
    for (const waiting of after(blocker)) {
      if (blocked.has(waiting)) continue;
      blocked.set(waiting, { code: 'blocked_by', module: waiting, blocker });
      queue.push(waiting);
    }
  }
  const ordered = topologicalOrder(
    [...members].filter((name) => !blocked.has(name)),
    before,
  );
  if (!ordered.ok) throw new Error(`planner: cycle ${ordered.cycle.join(' -> ')} survived blocking`);
  return { order: ordered.order, blocked };
}
