/**
 * The planner: what disk holds, what the database records and what the operator asks for, in;
 * an ordered plan or a refusal, out. Pure: no knex, no fs, no clock. The CLI calls it to decide
 * which `to_*` states to write, the controller calls it at restart (`reconcile`) to decide what to
 * apply; both render refusals through `refusals.ts`.
 *
 * This file answers the operator's requests; the restart-time plan is reconcile-plan.ts, and what
 * both look things up in is world.ts.
 */
import { byName, reach, topologicalOrder, type Edges } from './graph.ts';
import { breaksOfPlan, cascadeUpgrade, rangeFix, type RecordedRequires } from './ranges.ts';
import { planReconcile } from './reconcile-plan.ts';
import type {
  Action,
  DiskModule,
  Inventory,
  ModuleRow,
  ModuleState,
  Plan,
  PlanResult,
  Reason,
  Refusal,
  Request,
  TableReference,
} from './types.ts';
import {
  action,
  byReference,
  createWorld,
  isPresent,
  manifestRefusal,
  onDisk,
  referencesFrom,
  unusableDependency,
  type Checked,
  type World,
} from './world.ts';

/**
 * `references`: the foreign keys between module tables (see `TableReference`); uninstalls heed
 * them. `recorded`: the version ranges installed modules were installed with; installs and
 * upgrades heed them.
 */
export function plan(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  request: Request,
  references: readonly TableReference[] = [],
  recorded: RecordedRequires = new Map(),
): PlanResult {
  const world = createWorld(inventory, rows, references, recorded);
  switch (request.kind) {
    case 'install':
      return withRanges(world, request.name, 'install', planInstall(world, request.name), {
        force: false,
        cascade: false,
      });
    case 'upgrade':
      return withRanges(world, request.name, 'upgrade', planUpgrade(world, request.name), request);
    case 'uninstall':
      return planUninstall(world, request.name, request);
    case 'reconcile':
      return { ok: true, plan: planReconcile(world) };
  }
}

/** The restart-time plan: the `reconcile` request, which is never refused, as a plain Plan. */
export function planPending(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  references: readonly TableReference[] = [],
): Plan {
  return planReconcile(createWorld(inventory, rows, references));
}

const refuse = (refusal: Refusal): PlanResult => ({ ok: false, refusal });

const planOf = (actions: Action[], inactive: Plan['inactive'] = []): PlanResult => ({
  ok: true,
  plan: { actions, unchanged: [], blocked: [], inactive },
});

const unchanged = (module: string, state: ModuleState): PlanResult => ({
  ok: true,
  plan: { actions: [], unchanged: [{ module, state }], blocked: [], inactive: [] },
});

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
 * An upgrade is possible whenever they differ, and the disk is what will run, so the
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

/**
 * An install or upgrade never leaves a present module outside a version range it requires (see
 * ranges.ts), unless `--force` says so: then the plan lists the ranges it breaks. `--cascade` first
 * upgrades each installed module whose range the plan breaks and that has another version on disk.
 */
function withRanges(
  world: World,
  root: string,
  kind: 'install' | 'upgrade',
  planned: PlanResult,
  options: { force: boolean; cascade: boolean },
): PlanResult {
  if (!planned.ok || planned.plan.actions.length === 0) return planned;
  let actions = planned.plan.actions;
  if (options.cascade) {
    const cascaded = cascadeRanges(world, actions);
    if (!cascaded.ok) return refuse(cascaded.refusal);
    actions = cascaded.value;
  }
  const breaks = breaksOfPlan(world, actions);
  if (breaks.length === 0) return planOf(actions);
  if (options.force)
    return { ok: true, plan: { actions, unchanged: [], blocked: [], inactive: [], rangeBreaks: breaks } };
  return refuse({
    code: 'out_of_range',
    kind,
    module: root,
    breaks: breaks.map((broken) => ({ ...broken, fix: rangeFix(world, actions, broken) })),
  });
}

/**
 * `actions` with an upgrade of every installed module whose range they break and that has another
 * version on disk (and the new dependencies of that version), until no such module is left: each
 * round adds at least one module, so it ends.
 */
function cascadeRanges(world: World, actions: readonly Action[]): Checked<Action[]> {
  const reasons = new Map(actions.map((planned) => [planned.module, planned.reason]));
  const upgrades = new Set(actions.filter((planned) => planned.kind === 'upgrade').map((a) => a.module));
  let current = [...actions];
  for (;;) {
    const more = breaksOfPlan(world, current).flatMap((broken) => {
      const module = cascadeUpgrade(world, current, broken);
      return module === null || reasons.has(module) ? [] : [{ module, of: broken.dependency }];
    });
    if (more.length === 0) return { ok: true, value: current };
    for (const { module, of } of more) {
      if (reasons.has(module)) continue;
      reasons.set(module, { kind: 'dependent', of });
      upgrades.add(module);
      const chain = collectChain(world, module, 'new_dependency');
      if (!chain.ok) return chain;
      for (const [dependency, reason] of chain.value)
        if (!reasons.has(dependency)) reasons.set(dependency, reason);
    }
    const ordered = topologicalOrder(reasons.keys(), world.depends);
    if (!ordered.ok) return { ok: false, refusal: { code: 'dependency_cycle', path: ordered.cycle } };
    current = ordered.order.map((module) =>
      action(world, upgrades.has(module) ? 'upgrade' : 'install', module, reasons.get(module)!),
    );
  }
}

/**
 * A `to_install` module is uninstalled like an installed one: its install may have run partly,
 * and the uninstall steps are idempotent, so they clean up whatever it left behind.
 *
 * An uninstall never leaves a foreign key pointing into a table it drops: the downgrade would fail
 * halfway through the steps, after the backup, the hook and the purge, so nothing overrides that.
 * Present modules that depend on it refuse it too, unless `--force` is given: then only the module
 * is scheduled, and the plan names the dependents it leaves inactive (inactive.ts) until it is
 * installed again. `--force` also overrides `"removable": false`; `--cascade` takes the modules
 * that depend on or point into the module along.
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
  if (options.cascade) return planCascade(world, name, options.force);
  const stranded = strandedReferences(world, new Set([name]));
  if (stranded.length > 0)
    return refuse({ code: 'referenced_by_unowned', module: name, references: stranded });
  const dependents = world.presentDependents(name);
  const referencers = world.presentReferencers(name);
  if (dependents.length === 0 && referencers.length === 0)
    return planOf([action(world, 'uninstall', name, { kind: 'requested' })]);
  if (options.force && referencers.length === 0)
    return planOf(
      [action(world, 'uninstall', name, { kind: 'requested' })],
      dependents.map((module) => ({ module, dependency: name })),
    );
  const references = referencesFrom(world, name, referencers);
  if (dependents.length === 0)
    return refuse({ code: 'referenced_by', module: name, referencers: [...referencers], references });
  const required = [...new Set([...dependents, ...referencers])].sort(byName);
  return refuse({ code: 'required_by', module: name, dependents: required, references });
}

/** rules 1 and 2, in the order that makes `--force` matter least: a legacy module never goes. */
function removalRefusal(disk: DiskModule, force: boolean): Refusal | null {
  if (!disk.hasMigrationBranch) return { code: 'no_migration_branch', module: disk.name };
  if (!disk.removable && !force) return { code: 'not_removable', module: disk.name };
  return null;
}

/**
 * Foreign keys into the tables of `leaving` from tables that stay whatever is uninstalled: owned by
 * no module, or by one that is neither present nor already scheduled to leave. Present owners are
 * not counted: `--cascade` takes them along, and without it they are the refusal's dependents.
 */
function strandedReferences(world: World, leaving: ReadonlySet<string>): TableReference[] {
  const stays = (module: string | null): boolean => {
    if (module === null) return true;
    if (leaving.has(module)) return false;
    const row = world.rows.get(module);
    return !isPresent(row) && row?.state !== 'to_uninstall';
  };
  return [...leaving]
    .flatMap((module) => world.referencesInto(module).filter((reference) => stays(reference.fromModule)))
    .sort(byReference);
}

/**
 * `root` and every present module that needs it or points into its tables, transitively; each
 * must be removable itself. Modules go before the modules they need or point into.
 */
function planCascade(world: World, root: string, force: boolean): PlanResult {
  const leavingBefore: Edges = (module) => [
    ...world.presentDependents(module),
    ...world.presentReferencers(module),
  ];
  const reachedBy = reach(root, leavingBefore);
  for (const dependent of [...reachedBy.keys()].sort(byName)) {
    // A module whose tables point into root's may have lost its code: it cannot be uninstalled.
    const disk = onDisk(world, dependent);
    if (!disk.ok) return refuse(disk.refusal);
    const refusal = removalRefusal(disk.value, force);
    if (refusal !== null) return refuse(refusal);
  }
  const doomed = new Set([root, ...reachedBy.keys()]);
  const stranded = strandedReferences(world, doomed);
  if (stranded.length > 0)
    return refuse({ code: 'referenced_by_unowned', module: root, references: stranded });
  const ordered = topologicalOrder(doomed, leavingBefore);
  if (!ordered.ok) return refuse({ code: 'dependency_cycle', path: [...ordered.cycle].reverse() });
  return planOf(
    ordered.order.map((module) => {
      const of = reachedBy.get(module);
      const reason: Reason =
        of === undefined
          ? { kind: 'requested' }
          : { kind: world.presentDependents(of).includes(module) ? 'dependent' : 'referencer', of };
      return action(world, 'uninstall', module, reason);
    }),
  );
}
