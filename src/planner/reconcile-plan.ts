/**
 * The restart-time plan (`plan(…, {kind: 'reconcile'})`): every pending row that can be applied,
 * in an order that is safe, and the others set aside with why.
 */
import { byName, cyclicComponents, findCycle, invert, topologicalOrder } from './graph.ts';
import type { Edges } from './graph.ts';
import type { ModuleState, Plan, Refusal } from './types.ts';
import { action, onDisk, referencesFrom, unusableDependency, withoutSelf, type World } from './world.ts';

/**
 * Restart time: apply every pending row that can be applied and set the others aside with why.
 * Uninstalls run first, dependents before their dependencies, so nothing that stays loses a
 * dependency mid-run; then installs and upgrades, dependencies first. Installed rows are never
 * touched. A `to_upgrade` row whose disk version equals the database one still gets its upgrade
 * (re-run seeds, `post_upgrade`): refusing would leave it pending forever.
 */
export function planReconcile(world: World): Plan {
  const pending = (states: ModuleState[]): string[] =>
    [...world.rows.values()].filter((row) => states.includes(row.state)).map((row) => row.name);
  // A module whose tables point into another's must go first, like a dependent.
  const removalNeeds: Edges = (name) => [...withoutSelf(world.depends)(name), ...world.referenced(name)];
  const removal = settle(pending(['to_uninstall']), removalNeeds, 'dependents_first', (name) =>
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
  const leaving = new Set(removal.order);
  const inactive = removal.order.flatMap((name) =>
    world
      .presentDependents(name)
      .filter((dependent) => !leaving.has(dependent))
      .map((dependent) => ({ module: dependent, dependency: name })),
  );
  return { actions, unchanged: [], blocked, inactive };
}

/**
 * Why a pending uninstall cannot run on its own account. `removable` and present dependents were
 * settled by `--force` when it was scheduled: the dependents stay, inactive. A present module whose
 * tables point into its tables (a row written by hand) keeps it, as the CLI would have refused: it
 * is named with the dependents, as the CLI names them. Foreign keys from tables no module owns are
 * the applier's `check` step's business: it sees the database as it is then.
 */
function removalBlocker(world: World, name: string): Refusal | null {
  const disk = onDisk(world, name);
  if (!disk.ok) return disk.refusal;
  if (!disk.value.hasMigrationBranch) return { code: 'no_migration_branch', module: name };
  const referencers = world.presentReferencers(name);
  if (referencers.length === 0) return null;
  const references = referencesFrom(world, name, referencers);
  const dependents = world.presentDependents(name);
  if (dependents.length === 0)
    return { code: 'referenced_by', module: name, referencers: [...referencers], references };
  return {
    code: 'required_by',
    module: name,
    dependents: [...new Set([...dependents, ...referencers])].sort(byName),
    references,
  };
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
