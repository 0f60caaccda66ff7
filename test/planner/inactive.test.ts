import test from 'ava';
import fc from 'fast-check';
import {
  findInactive,
  inactiveMessage,
  inactiveMessageChanges,
  inactiveText,
  isInactiveMessage,
  RUNNING_STATES,
} from '../../src/planner/inactive.ts';
import type { ModuleState } from '../../src/planner/types.ts';
import { inventoryOf, rowsOf } from '../helpers/inventory.ts';

const inventory = inventoryOf({
  vitals: {},
  vitals_alerts: { depends: ['vitals'] },
  vitals_report: { depends: ['vitals_alerts'] },
  other: {},
});

test('an installed module whose dependency is not installed is inactive, and so is what needs it', (t) => {
  const rows = rowsOf({
    vitals: 'uninstalled',
    vitals_alerts: 'installed',
    vitals_report: 'to_upgrade',
    other: 'installed',
  });
  t.deepEqual(findInactive(inventory, rows), [
    {
      module: 'vitals_alerts',
      state: 'installed',
      dependency: 'vitals',
      dependencyState: 'uninstalled',
      missing: 'vitals',
    },
    {
      module: 'vitals_report',
      state: 'to_upgrade',
      dependency: 'vitals_alerts',
      dependencyState: 'installed',
      missing: 'vitals',
    },
  ]);
});

test('a dependency that is installed, or waits for an upgrade or uninstall, keeps its dependents active', (t) => {
  for (const state of ['installed', 'to_upgrade', 'to_uninstall'] as ModuleState[])
    t.deepEqual(findInactive(inventory, rowsOf({ vitals: state, vitals_alerts: 'installed' })), []);
  t.like(findInactive(inventory, rowsOf({ vitals: 'to_install', vitals_alerts: 'installed' })), [
    { module: 'vitals_alerts', dependencyState: 'to_install' },
  ]);
});

test('the text names the missing dependency and the two ways out, and is recognised as an inactive text', (t) => {
  const [alerts, report] = findInactive(
    inventory,
    rowsOf({ vitals_alerts: 'installed', vitals_report: 'installed' }),
  );
  t.deepEqual(inactiveText(alerts!), {
    message: 'vitals_alerts is inactive: it depends on vitals, which is not installed',
    hint: 'install vitals (`ward modules install vitals`, then restart) to bring vitals_alerts back, or uninstall vitals_alerts (`ward modules uninstall vitals_alerts`)',
  });
  t.is(
    inactiveText(report!).message,
    'vitals_report is inactive: it depends on vitals_alerts, which is inactive without vitals',
  );
  t.true(isInactiveMessage({ name: 'vitals_alerts', error_message: inactiveMessage(alerts!) }));
  t.false(isInactiveMessage({ name: 'vitals_alerts', error_message: 'install failed at migrate: boom' }));
  t.false(isInactiveMessage({ name: 'other', error_message: inactiveMessage(alerts!) }));
});

test('a start records the text on inactive installed rows, clears it once they are active, and keeps a failed step', (t) => {
  const [alerts] = findInactive(inventory, rowsOf({ vitals_alerts: 'installed' }));
  const text = inactiveMessage(alerts!);
  const left = rowsOf({ vitals: 'uninstalled', vitals_alerts: 'installed', vitals_report: 'installed' });
  t.deepEqual(
    inactiveMessageChanges(inventory, left).map((change) => change.module),
    ['vitals_alerts', 'vitals_report'],
  );
  const recorded = left.map((row) => ({
    ...row,
    error_message: row.name === 'vitals_alerts' ? text : row.name === 'vitals_report' ? 'boom' : null,
  }));
  t.deepEqual(inactiveMessageChanges(inventory, recorded), [], 'unchanged text and a failed step stay');
  const back = recorded.map((row) => (row.name === 'vitals' ? { ...row, state: 'installed' as const } : row));
  t.deepEqual(inactiveMessageChanges(inventory, back), [{ module: 'vitals_alerts', errorMessage: null }]);
});

const STATES: ModuleState[] = ['uninstalled', 'installed', 'to_install', 'to_upgrade', 'to_uninstall'];

test('a running module is active exactly when every dependency runs and is active itself', (t) => {
  const world = fc
    .integer({ min: 1, max: 8 })
    .chain((size) =>
      fc.tuple(
        fc.array(fc.array(fc.nat({ max: size - 1 }), { maxLength: 3 }), { minLength: size, maxLength: size }),
        fc.array(fc.constantFrom(...STATES), { minLength: size, maxLength: size }),
      ),
    );
  fc.assert(
    fc.property(world, ([picks, states]) => {
      const names = picks.map((_, index) => `m${index}`);
      const specs = Object.fromEntries(
        names.map((name, index) => [name, { depends: picks[index]!.map((pick) => names[pick]!) }]),
      );
      const rows = rowsOf(Object.fromEntries(names.map((name, index) => [name, states[index]!])));
      const inactive = new Map(findInactive(inventoryOf(specs), rows).map((entry) => [entry.module, entry]));
      const state = new Map(rows.map((row) => [row.name, row.state]));
      const active = (name: string) => RUNNING_STATES.has(state.get(name)!) && !inactive.has(name);
      for (const name of names) {
        if (!RUNNING_STATES.has(state.get(name)!)) {
          t.false(inactive.has(name), `${name} does not run, so it is not inactive`);
          continue;
        }
        const dependencies = specs[name]!.depends.filter((dependency) => dependency !== name);
        t.is(inactive.has(name), !dependencies.every(active), `${name}`);
        const entry = inactive.get(name);
        if (entry === undefined) continue;
        t.false(active(entry.dependency));
        t.false(RUNNING_STATES.has(state.get(entry.missing)!), 'what to install does not run');
      }
    }),
    { numRuns: 300 },
  );
});
