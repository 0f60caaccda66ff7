import test from 'ava';
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';
import { plan } from '../../src/planner/planner.ts';
import type {
  Action,
  Inventory,
  ManifestProblem,
  ModuleRow,
  ModuleState,
  Plan,
  Request,
  TableReference,
} from '../../src/planner/types.ts';
import { diskModule, manifestProblem, row } from '../helpers/inventory.ts';

/** A name no generated module has, so depending on it is a missing dependency. */
const MISSING = 'missing_dep';
const PRESENT: ReadonlySet<ModuleState> = new Set(['installed', 'to_install', 'to_upgrade']);

interface World {
  names: string[];
  inventory: Inventory;
  rows: ModuleRow[];
  /** Foreign keys between the modules' tables, some from tables no module owns. */
  references: TableReference[];
}

const nodeArbitrary = fc.record({
  onDisk: fc.integer({ min: 0, max: 9 }).map((roll) => roll < 8),
  brokenManifest: fc.integer({ min: 0, max: 19 }).map((roll) => roll === 0),
  version: fc.constantFrom('1.0.0', '2.0.0'),
  dependencyPicks: fc.array(fc.nat(), { maxLength: 3 }),
  missingDependency: fc.integer({ min: 0, max: 19 }).map((roll) => roll === 0),
  removable: fc.boolean(),
  migrations: fc.integer({ min: 0, max: 9 }).map((roll) => roll > 0),
  state: fc.constantFrom<ModuleState | null>(
    null,
    'uninstalled',
    'installed',
    'to_install',
    'to_upgrade',
    'to_uninstall',
  ),
  rowVersion: fc.constantFrom<string | null>('1.0.0', '2.0.0', null),
});

type NodeSpec = typeof nodeArbitrary extends fc.Arbitrary<infer Spec> ? Spec : never;

/** A foreign key: `from` null (one in five) is a table no module owns. */
const referenceArbitrary = fc.record({
  from: fc.option(fc.nat(), { freq: 5 }),
  to: fc.nat(),
  fromTable: fc.nat({ max: 2 }),
  toTable: fc.nat({ max: 2 }),
});

type ReferenceSpec = typeof referenceArbitrary extends fc.Arbitrary<infer Spec> ? Spec : never;

/**
 * Nodes for uninstall properties: on disk, sound manifests, mostly installed, so that uninstalls
 * get past the early refusals and meet dependents and foreign keys often.
 */
const uninstallNodeArbitrary: fc.Arbitrary<NodeSpec> = fc.record({
  onDisk: fc.constant(true),
  brokenManifest: fc.constant(false),
  version: fc.constant('1.0.0'),
  dependencyPicks: fc.array(fc.nat(), { maxLength: 2 }),
  missingDependency: fc.constant(false),
  removable: fc.integer({ min: 0, max: 3 }).map((roll) => roll > 0),
  migrations: fc.integer({ min: 0, max: 19 }).map((roll) => roll > 0),
  state: fc.constantFrom<ModuleState | null>(
    'installed',
    'installed',
    'installed',
    'to_install',
    'to_uninstall',
    'uninstalled',
  ),
  rowVersion: fc.constant('1.0.0'),
});

/** A consistent world of up to 8 modules with up to 8 foreign keys, and an uninstall of one of them. */
const uninstallCase = fc
  .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,2}$/), { minLength: 1, maxLength: 8 })
  .chain((names) =>
    fc.tuple(
      fc
        .tuple(
          fc.array(uninstallNodeArbitrary, { minLength: names.length, maxLength: names.length }),
          fc.array(referenceArbitrary, { maxLength: 8 }),
          fc.boolean(),
        )
        .map(([nodes, references, acyclic]) =>
          buildWorld(names, nodes, references, { acyclic, consistent: true }),
        ),
      fc
        .tuple(fc.constantFrom(...names), fc.boolean(), fc.boolean())
        .map(([name, force, cascade]) => ({ kind: 'uninstall' as const, name, force, cascade })),
    ),
  );

/**
 * Random modules and rows. `acyclic` only lets a module depend on modules listed before it; names
 * are random, so list order and name order are unrelated. `consistent` repairs the rows so that
 * every present module starts with its dependencies present, as a healthy system would.
 */
function worldArbitrary(options: { acyclic: boolean; consistent: boolean }): fc.Arbitrary<World> {
  return fc
    .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,2}$/), { minLength: 1, maxLength: 12 })
    .chain((names) =>
      fc
        .tuple(
          fc.array(nodeArbitrary, { minLength: names.length, maxLength: names.length }),
          fc.array(referenceArbitrary, { maxLength: 4 }),
        )
        .map(([nodes, references]) => buildWorld(names, nodes, references, options)),
    );
}

/** Table `t` of module `m` is `m_t`; a table no module owns is `free_t`. */
function buildReferences(names: string[], specs: ReferenceSpec[]): TableReference[] {
  return specs.map((spec, at) => {
    const fromModule = spec.from === null ? null : names[spec.from % names.length]!;
    const toModule = names[spec.to % names.length]!;
    return {
      fromModule,
      fromTable: `${fromModule ?? 'free'}_${spec.fromTable}`,
      constraint: `fk${at}`,
      toModule,
      toTable: `${toModule}_${spec.toTable}`,
    };
  });
}

function buildWorld(
  names: string[],
  nodes: NodeSpec[],
  references: ReferenceSpec[],
  options: { acyclic: boolean; consistent: boolean },
): World {
  const modules = new Map<string, ReturnType<typeof diskModule>>();
  const problems: ManifestProblem[] = [];
  const rows = new Map<string, ModuleRow>();
  nodes.forEach((node, at) => {
    const name = names[at]!;
    const range = options.acyclic ? at : names.length;
    const depends = range === 0 ? [] : node.dependencyPicks.map((pick) => names[pick % range]!);
    if (node.missingDependency) depends.push(MISSING);
    if (node.brokenManifest) problems.push(manifestProblem(name));
    else if (node.onDisk)
      modules.set(
        name,
        diskModule(name, {
          version: node.version,
          depends,
          removable: node.removable,
          migrations: node.migrations,
        }),
      );
    if (node.state !== null) rows.set(name, row(name, node.state, node.rowVersion));
  });
  if (options.consistent) repair(modules, rows);
  return {
    names,
    inventory: { modules, problems },
    rows: [...rows.values()],
    references: buildReferences(names, references),
  };
}

/** Demotes present modules with a dependency that is not present until none is left. */
function repair(modules: ReadonlyMap<string, { depends: string[] }>, rows: Map<string, ModuleRow>): void {
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, current] of rows) {
      if (!PRESENT.has(current.state)) continue;
      const depends = modules.get(name)?.depends ?? [];
      if (depends.every((dependency) => PRESENT.has(rows.get(dependency)?.state ?? 'uninstalled'))) continue;
      rows.set(name, { ...current, state: 'uninstalled' });
      changed = true;
    }
  }
}

function requestArbitrary(names: string[]): fc.Arbitrary<Request> {
  const name = fc.constantFrom(...names, 'nobody');
  return fc.oneof(
    name.map((module): Request => ({ kind: 'install', name: module })),
    fc
      .tuple(name, fc.boolean(), fc.boolean())
      .map(([module, force, cascade]): Request => ({ kind: 'upgrade', name: module, force, cascade })),
    fc
      .tuple(name, fc.boolean(), fc.boolean())
      .map(([module, force, cascade]): Request => ({ kind: 'uninstall', name: module, force, cascade })),
    fc.constant<Request>({ kind: 'reconcile' }),
  );
}

const worldAndRequest = (options: { acyclic: boolean; consistent: boolean }) =>
  worldArbitrary(options).chain((world) => fc.tuple(fc.constant(world), requestArbitrary(world.names)));

const dependsOf = (world: World, name: string): string[] => world.inventory.modules.get(name)?.depends ?? [];

/** Whether every action comes after the actions `mustComeFirst` names. */
function respects(actions: Action[], mustComeFirst: (action: Action) => string[]): boolean {
  const position = new Map(actions.map((action, at) => [action.module, at]));
  return actions.every((action, at) =>
    mustComeFirst(action).every((name) => (position.get(name) ?? -1) < at),
  );
}

const uninstallActions = (actions: Action[]): Action[] =>
  actions.filter((action) => action.kind === 'uninstall');

/** Other modules in the list that depend on `name` or whose tables point into its tables. */
const leavingBeforeAmong = (world: World, actions: Action[], name: string): string[] => {
  const referencing = new Set(
    world.references
      .filter((reference) => reference.toModule === name)
      .map((reference) => reference.fromModule),
  );
  return actions
    .map((action) => action.module)
    .filter(
      (module) => module !== name && (dependsOf(world, module).includes(name) || referencing.has(module)),
    );
};

/** Naive reference: a set has a cycle when peeling off nodes without in-set dependencies leaves some. */
function hasCycle(world: World, members: Set<string>): boolean {
  const left = new Set(members);
  for (let peeled = true; peeled;) {
    peeled = false;
    for (const name of left) {
      if (dependsOf(world, name).some((dependency) => left.has(dependency))) continue;
      left.delete(name);
      peeled = true;
    }
  }
  return left.size > 0;
}

/** The modules an install of `name` must schedule: `name` and its not-present dependencies, transitively. */
function referenceChain(world: World, name: string): Set<string> {
  const state = new Map(world.rows.map((current) => [current.name, current.state]));
  const chain = new Set([name]);
  for (const current of chain) {
    for (const dependency of dependsOf(world, current)) {
      if (!PRESENT.has(state.get(dependency) ?? 'uninstalled')) chain.add(dependency);
    }
  }
  return chain;
}

/** The rows after the plan has been applied (pending states written and then processed). */
function applied(world: World, actions: Action[]): Map<string, ModuleState> {
  const states = new Map(world.rows.map((current) => [current.name, current.state]));
  for (const action of actions)
    states.set(action.module, action.kind === 'uninstall' ? 'uninstalled' : 'installed');
  return states;
}

/**
 * After the plan, each present module lacks exactly the dependencies `plan.inactive` names for it
 * (none unless the request is an uninstall with --force), and each named one is present. Returns
 * true so a property can assert it; the details are separate assertions.
 */
function missingOnlyWhereNamed(t: ExecutionContext, world: World, request: Request, planned: Plan): boolean {
  const states = applied(world, planned.actions);
  const present = (name: string): boolean => PRESENT.has(states.get(name) ?? 'uninstalled');
  const forced = request.kind === 'uninstall' && request.force && !request.cascade;
  for (const name of world.inventory.modules.keys()) {
    if (!present(name)) continue;
    const lost = dependsOf(world, name).filter((dependency) => !present(dependency));
    const named = planned.inactive.filter((entry) => entry.module === name).map((entry) => entry.dependency);
    t.deepEqual([...new Set(lost)].sort(), named.sort(), `${name} lost a dependency the plan does not name`);
    if (!forced) t.deepEqual(lost, [], `${name} lost a dependency without --force`);
  }
  t.true(planned.inactive.every((entry) => present(entry.module)));
  return true;
}

const runs = { numRuns: 500 };

for (const acyclic of [true, false]) {
  const graphs = acyclic ? 'random DAGs' : 'random graphs';

  test(`install and upgrade plans put dependencies before dependents (${graphs})`, (t) => {
    fc.assert(
      fc.property(worldAndRequest({ acyclic, consistent: false }), ([world, request]) => {
        if (request.kind !== 'install' && request.kind !== 'upgrade') return;
        const result = plan(world.inventory, world.rows, request);
        if (!result.ok) return;
        t.true(respects(result.plan.actions, (action) => dependsOf(world, action.module)));
        t.true(result.plan.actions.every((action) => action.kind !== 'uninstall'));
      }),
      runs,
    );
  });

  test(`uninstall plans run dependents and referencing modules first (${graphs})`, (t) => {
    fc.assert(
      fc.property(worldAndRequest({ acyclic, consistent: false }), ([world, request]) => {
        if (request.kind !== 'uninstall') return;
        const result = plan(world.inventory, world.rows, request, world.references);
        if (!result.ok) return;
        const { actions } = result.plan;
        t.true(actions.every((action) => action.kind === 'uninstall' && action.toVersion === null));
        t.true(respects(actions, (action) => leavingBeforeAmong(world, actions, action.module)));
      }),
      runs,
    );
  });

  test(`after any ok plan a present module lacks only the dependencies the plan names it inactive without, and only with --force (${graphs})`, (t) => {
    fc.assert(
      fc.property(worldAndRequest({ acyclic, consistent: true }), ([world, request]) => {
        const result = plan(world.inventory, world.rows, request, world.references);
        if (!result.ok) return;
        t.true(missingOnlyWhereNamed(t, world, request, result.plan));
      }),
      runs,
    );
  });

  test(`reconcile applies or blocks each pending row once, in a safe order (${graphs})`, (t) => {
    fc.assert(
      fc.property(worldArbitrary({ acyclic, consistent: false }), (world) => {
        const result = plan(world.inventory, world.rows, { kind: 'reconcile' }, world.references);
        if (!result.ok) return t.fail('reconcile never refuses');
        const { actions, blocked } = result.plan;
        const pending = world.rows
          .filter((current) => current.state.startsWith('to_'))
          .map((current) => current.name);
        const handled = [...actions.map((action) => action.module), ...blocked.map((entry) => entry.module)];
        t.deepEqual([...handled].sort(), [...pending].sort());
        const uninstalls = uninstallActions(actions);
        t.deepEqual(actions.slice(0, uninstalls.length), uninstalls);
        t.true(respects(uninstalls, (action) => leavingBeforeAmong(world, uninstalls, action.module)));
        const states = new Map(world.rows.map((current) => [current.name, current.state]));
        for (const action of actions) {
          if (action.kind !== 'uninstall')
            t.true(
              dependsOf(world, action.module).every((dependency) => states.get(dependency) === 'installed'),
            );
          states.set(action.module, action.kind === 'uninstall' ? 'uninstalled' : 'installed');
        }
      }),
      runs,
    );
  });

  test(`the same input always gives the same plan, whatever the listing order (${graphs})`, (t) => {
    const shuffled = worldAndRequest({ acyclic, consistent: false }).chain(([world, request]) =>
      fc
        .tuple(
          fc.shuffledSubarray(world.rows, { minLength: world.rows.length }),
          fc.shuffledSubarray([...world.inventory.modules.values()], {
            minLength: world.inventory.modules.size,
          }),
        )
        .map(([rows, modules]) => ({ world, request, rows, modules })),
    );
    fc.assert(
      fc.property(shuffled, ({ world, request, rows, modules }) => {
        const reordered: Inventory = {
          modules: new Map(
            modules.map((module) => [module.name, { ...module, depends: [...module.depends].reverse() }]),
          ),
          problems: [...world.inventory.problems].reverse(),
        };
        t.deepEqual(
          plan(reordered, rows, request, [...world.references].reverse()),
          plan(world.inventory, world.rows, request, world.references),
        );
      }),
      runs,
    );
  });
}

test('install refuses whenever the modules it would schedule contain a cycle', (t) => {
  fc.assert(
    fc.property(worldAndRequest({ acyclic: false, consistent: false }), ([world, request]) => {
      if (request.kind !== 'install' || !world.inventory.modules.has(request.name)) return;
      const state = world.rows.find((current) => current.name === request.name)?.state ?? 'uninstalled';
      if (PRESENT.has(state)) return;
      const chain = referenceChain(world, request.name);
      const result = plan(world.inventory, world.rows, request);
      if (hasCycle(world, chain)) t.false(result.ok, `cycle in ${[...chain].join(',')} was planned`);
      if (!result.ok && result.refusal.code === 'dependency_cycle') {
        const { path } = result.refusal;
        t.is(path[0], path[path.length - 1]);
        for (let at = 1; at < path.length; at++) t.true(dependsOf(world, path[at - 1]!).includes(path[at]!));
      }
    }),
    runs,
  );
});

test('a cycle among uninstalled modules is always refused with its path', (t) => {
  const ring = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,3}$/), { minLength: 1, maxLength: 8 });
  fc.assert(
    fc.property(ring, fc.nat(), (names, pick) => {
      const modules = new Map(
        names.map((name, at) => [name, diskModule(name, { depends: [names[(at + 1) % names.length]!] })]),
      );
      const result = plan({ modules, problems: [] }, [], {
        kind: 'install',
        name: names[pick % names.length]!,
      });
      if (result.ok) return t.fail('cycle planned');
      if (result.refusal.code !== 'dependency_cycle') return t.fail(`refused with ${result.refusal.code}`);
      t.deepEqual([...new Set(result.refusal.path)].sort(), [...names].sort());
      t.is(result.refusal.path.length, names.length + 1);
      t.is(result.refusal.path[0], [...names].sort()[0]);
    }),
    runs,
  );
});

test('a planned uninstall leaves no foreign key pointing into a module it removes', (t) => {
  let checked = 0;
  fc.assert(
    fc.property(uninstallCase, ([world, request]) => {
      const result = plan(world.inventory, world.rows, request, world.references);
      if (!result.ok) return;
      const removed = new Set(result.plan.actions.map((action) => action.module));
      const leaving = new Set(
        world.rows.filter((current) => current.state === 'to_uninstall').map((current) => current.name),
      );
      for (const reference of world.references) {
        if (!removed.has(reference.toModule) || reference.fromModule === reference.toModule) continue;
        const from = reference.fromModule;
        checked++;
        t.true(
          from !== null && (removed.has(from) || leaving.has(from)),
          `${reference.fromTable}.${reference.constraint} still points into ${reference.toTable}`,
        );
      }
    }),
    runs,
  );
  t.true(checked > 0, 'some plans removed a module that foreign keys point into');
});

test('a planned uninstall leaves a present module without a dependency only with --force, and names it', (t) => {
  let checked = 0;
  fc.assert(
    fc.property(uninstallCase, ([world, request]) => {
      const result = plan(world.inventory, world.rows, request, world.references);
      if (!result.ok) return;
      t.true(missingOnlyWhereNamed(t, world, request, result.plan));
      if (result.plan.inactive.length > 0) checked++;
    }),
    runs,
  );
  t.true(checked > 0, 'some --force plans left a dependent inactive');
});

test('a dependents or foreign-key refusal is lifted by --cascade --force unless something no flag lifts stands in the way', (t) => {
  const liftable = new Set(['required_by', 'referenced_by']);
  const unliftable = new Set(['no_migration_branch', 'referenced_by_unowned', 'dependency_cycle']);
  let lifted = 0;
  fc.assert(
    fc.property(uninstallCase, ([world, request]) => {
      const result = plan(world.inventory, world.rows, { ...request, cascade: false }, world.references);
      if (result.ok || !liftable.has(result.refusal.code)) return;
      const cascaded = plan(
        world.inventory,
        world.rows,
        { ...request, cascade: true, force: true },
        world.references,
      );
      if (!cascaded.ok) return t.true(unliftable.has(cascaded.refusal.code), cascaded.refusal.code);
      lifted++;
      t.is(cascaded.plan.actions.at(-1)?.module, request.name, 'the requested module goes last');
    }),
    runs,
  );
  t.true(lifted > 0);
});
