/**
 * Times the planner on a seeded random 1,000-module DAG against its 50 ms budget. Prints the
 * median of 20 runs per scenario; asserts nothing, so a slow machine reports rather than fails.
 *
 *   node bench/planner.ts
 */
import { performance } from 'node:perf_hooks';
import { seededRandom } from '../scripts/generate-import-fixtures.ts';
import { plan } from '../src/planner/planner.ts';
import type { DiskModule, Inventory, ModuleRow, ModuleState, Request } from '../src/planner/types.ts';

const MODULES = 1000;
const RUNS = 20;
const WARMUP = 5;
const TARGET_MS = 50;
const SEED = 0x5eed;

const nameOf = (index: number): string => `m${String(index).padStart(4, '0')}`;

/**
 * Module i depends on up to three earlier modules: half the picks from the twenty just before it
 * (long chains, like real layered modules), half from anywhere earlier (wide fan-in on the roots).
 */
function randomDag(): Inventory {
  const next = seededRandom(SEED);
  const modules = new Map<string, DiskModule>();
  for (let index = 0; index < MODULES; index++) {
    const name = nameOf(index);
    const depends = new Set<string>();
    const picks = index === 0 ? 0 : 1 + Math.floor(next() * 3);
    for (let pick = 0; pick < picks; pick++) {
      const window = next() < 0.5 ? Math.min(index, 20) : index;
      depends.add(nameOf(index - 1 - Math.floor(next() * window)));
    }
    const version = '1.0.0';
    modules.set(name, {
      name,
      version,
      category: 'community',
      dir: `/bench/${name}`,
      manifest: { name, version, depends: [...depends], removable: true },
      depends: [...depends],
      requires: {},
      removable: true,
      hasMigrationBranch: true,
      hooks: null,
      routes: null,
      commands: null,
      services: null,
      frontend: null,
      api: null,
    });
  }
  return { modules, problems: [] };
}

/** The module with the longest dependency chain below it. */
function deepest(inventory: Inventory): string {
  const depth = new Map<string, number>();
  let best = nameOf(0);
  for (const [name, module] of inventory.modules) {
    const own = 1 + Math.max(0, ...module.depends.map((dependency) => depth.get(dependency) ?? 0));
    depth.set(name, own);
    if (own > (depth.get(best) ?? 0)) best = name;
  }
  return best;
}

const rowsIn = (inventory: Inventory, state: ModuleState): ModuleRow[] =>
  [...inventory.modules.keys()].map((name) => ({
    name,
    state,
    version: state === 'to_install' ? null : '1.0.0',
    installed_at: null,
    error_message: null,
    last_state_change: new Date(0),
  }));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function time(
  label: string,
  detail: string,
  inventory: Inventory,
  rows: ModuleRow[],
  request: Request,
): void {
  const samples: number[] = [];
  let actions = 0;
  for (let run = 0; run < WARMUP + RUNS; run++) {
    const started = performance.now();
    const result = plan(inventory, rows, request);
    const elapsed = performance.now() - started;
    if (run >= WARMUP) samples.push(elapsed);
    if (!result.ok) throw new Error(`${label}: refused with ${result.refusal.code}`);
    actions = result.plan.actions.length;
  }
  const ms = median(samples);
  const ratio = (ms / TARGET_MS).toFixed(2);
  console.log(
    `planner ${label} ${MODULES} modules: ${ms.toFixed(1)} ms (${ratio}x of ${TARGET_MS} ms target) - ${detail}, ${actions} actions`,
  );
}

const inventory = randomDag();
const deep = deepest(inventory);
time('install', `deepest module ${deep}`, inventory, [], { kind: 'install', name: deep });
time('cascade uninstall', `root ${nameOf(0)}, all installed`, inventory, rowsIn(inventory, 'installed'), {
  kind: 'uninstall',
  name: nameOf(0),
  force: false,
  cascade: true,
});
time('reconcile', 'all to_install', inventory, rowsIn(inventory, 'to_install'), { kind: 'reconcile' });
