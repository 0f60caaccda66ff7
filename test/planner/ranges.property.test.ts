/**
 * Properties of version ranges in the planner, over random modules, versions, ranges, rows and
 * recorded ranges: a plan never leaves a range broken unless --force lists it; ranges only ever
 * refuse or extend (with --cascade) a plan, never change it otherwise.
 */
import test from 'ava';
import fc from 'fast-check';
import { plan } from '../../src/planner/planner.ts';
import { breaksOfPlan } from '../../src/planner/ranges.ts';
import type { Inventory, ModuleRow, ModuleState, Request } from '../../src/planner/types.ts';
import { inventoryOf, row, type ModuleSpec } from '../helpers/inventory.ts';

const VERSIONS = ['1.0.0', '1.1.0', '2.0.0'];
const RANGES = ['^1.0.0', '^2.0.0', '>=1.1.0', '*', '~1.0.0', '<2.0.0'];

interface World {
  names: string[];
  inventory: Inventory;
  rows: ModuleRow[];
  recorded: Map<string, Record<string, string>>;
}

const moduleArbitrary = fc.record({
  version: fc.constantFrom(...VERSIONS),
  dependencyPicks: fc.array(fc.nat(), { maxLength: 2 }),
  rangePicks: fc.array(fc.option(fc.constantFrom(...RANGES), { freq: 2 }), { minLength: 2, maxLength: 2 }),
  state: fc.constantFrom<ModuleState | null>(
    null,
    'uninstalled',
    'installed',
    'installed',
    'to_install',
    'to_upgrade',
  ),
  rowVersion: fc.constantFrom(...VERSIONS),
  recorded: fc.option(fc.constantFrom(...RANGES), { freq: 2 }),
});

const worldArbitrary: fc.Arbitrary<World> = fc
  .array(moduleArbitrary, { minLength: 1, maxLength: 6 })
  .map((specs) => {
    const names = specs.map((_, index) => `m${index}`);
    const modules: Record<string, ModuleSpec> = {};
    const rows: ModuleRow[] = [];
    const recorded = new Map<string, Record<string, string>>();
    specs.forEach((spec, index) => {
      const name = names[index]!;
      // Only earlier modules: acyclic, so refusals come from ranges and rows, not cycles.
      const depends =
        index === 0 ? [] : [...new Set(spec.dependencyPicks.map((pick) => names[pick % index]!))];
      const requires = Object.fromEntries(
        depends.flatMap((dependency, at) => {
          const range = spec.rangePicks[at];
          return range === null || range === undefined ? [] : [[dependency, range]];
        }),
      );
      modules[name] = { version: spec.version, depends, requires };
      if (spec.state !== null)
        rows.push(row(name, spec.state, spec.state === 'uninstalled' ? null : spec.rowVersion));
      const first = depends[0];
      if (spec.state === 'installed' && spec.recorded !== null && first !== undefined)
        recorded.set(name, { [first]: spec.recorded });
    });
    return { names, inventory: inventoryOf(modules), rows, recorded };
  });

const requestArbitrary = (names: string[]): fc.Arbitrary<Request> =>
  fc.oneof(
    fc.constantFrom(...names).map((name): Request => ({ kind: 'install', name })),
    fc
      .tuple(fc.constantFrom(...names), fc.boolean(), fc.boolean())
      .map(([name, force, cascade]): Request => ({ kind: 'upgrade', name, force, cascade })),
  );

const scenario = worldArbitrary.chain((world) => fc.tuple(fc.constant(world), requestArbitrary(world.names)));

const inputsOf = (world: World) => ({
  modules: world.inventory.modules,
  rows: new Map(world.rows.map((entry) => [entry.name, entry])),
  recorded: world.recorded,
});

/** The same world with no ranges anywhere: what the planner did before `requires`. */
function withoutRanges(world: World): World {
  const modules = new Map(
    [...world.inventory.modules].map(([name, module]) => [name, { ...module, requires: {} }]),
  );
  return { ...world, inventory: { ...world.inventory, modules }, recorded: new Map() };
}

const forced = (request: Request): boolean => request.kind === 'upgrade' && request.force;
const cascading = (request: Request): boolean => request.kind === 'upgrade' && request.cascade;

test('a plan leaves no range broken that it touches, unless --force, and then lists exactly those', (t) => {
  fc.assert(
    fc.property(scenario, ([world, request]) => {
      const result = plan(world.inventory, world.rows, request, [], world.recorded);
      if (!result.ok) return;
      const breaks = breaksOfPlan(inputsOf(world), result.plan.actions);
      if (forced(request)) t.deepEqual(result.plan.rangeBreaks ?? [], breaks);
      else t.deepEqual(breaks, []);
    }),
    { numRuns: 500 },
  );
});

test('without --cascade, ranges only refuse: any plan is the plan Ward makes without ranges', (t) => {
  fc.assert(
    fc.property(scenario, ([world, request]) => {
      if (cascading(request)) return;
      const result = plan(world.inventory, world.rows, request, [], world.recorded);
      const bare = withoutRanges(world);
      const before = plan(bare.inventory, bare.rows, request);
      if (result.ok) t.deepEqual(result.plan.actions, before.ok ? before.plan.actions : null);
      else if (result.refusal.code === 'out_of_range') {
        t.true(before.ok, 'only a plan Ward would make is refused for its ranges');
        t.true(result.refusal.breaks.length > 0);
        if (request.kind === 'upgrade') {
          const anyway = plan(world.inventory, world.rows, { ...request, force: true }, [], world.recorded);
          t.true(anyway.ok && (anyway.plan.rangeBreaks ?? []).length > 0, '--force plans it');
        }
      } else t.deepEqual(result, before);
    }),
    { numRuns: 500 },
  );
});

test('--cascade adds only upgrades of installed dependents with another version on disk, and their new dependencies', (t) => {
  fc.assert(
    fc.property(scenario, ([world, request]) => {
      if (request.kind !== 'upgrade' || !request.cascade) return;
      const cascaded = plan(world.inventory, world.rows, request, [], world.recorded);
      const plain = plan(
        world.inventory,
        world.rows,
        { ...request, cascade: false, force: true },
        [],
        world.recorded,
      );
      if (!cascaded.ok || !plain.ok) return;
      const before = new Set(plain.plan.actions.map((action) => action.module));
      const rows = new Map(world.rows.map((entry) => [entry.name, entry]));
      for (const action of cascaded.plan.actions) {
        if (before.has(action.module)) continue;
        if (action.kind === 'upgrade') {
          t.is(action.reason.kind, 'dependent');
          t.is(rows.get(action.module)?.state, 'installed');
          t.not(rows.get(action.module)?.version, world.inventory.modules.get(action.module)?.version);
        } else {
          t.is(action.kind, 'install');
          t.true(['new_dependency', 'dependency'].includes(action.reason.kind), action.reason.kind);
        }
      }
      const position = new Map(cascaded.plan.actions.map((action, index) => [action.module, index]));
      for (const action of cascaded.plan.actions)
        for (const dependency of world.inventory.modules.get(action.module)?.depends ?? [])
          if (position.has(dependency))
            t.true(position.get(dependency)! < position.get(action.module)!, 'dependencies first');
    }),
    { numRuns: 500 },
  );
});
