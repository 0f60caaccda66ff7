import test from 'ava';
import { diagnose, findingCount } from '../../src/planner/doctor.ts';
import { findInactive, inactiveMessage } from '../../src/planner/inactive.ts';
import type { ModuleState } from '../../src/planner/types.ts';
import { inventoryOf, rowsOf } from '../helpers/inventory.ts';

const inventory = inventoryOf({
  base: {},
  patients: { depends: ['base'] },
  appointments: { depends: ['patients'] },
  importer: { depends: ['patients', 'appointments', 'nowhere'] },
});

test('doctor reports an installed module whose dependency is uninstalled, with the install as the fix', (t) => {
  const report = diagnose(
    inventory,
    rowsOf({ base: 'installed', patients: 'installed', appointments: 'uninstalled', importer: 'installed' }),
  );
  t.deepEqual(report.unsatisfiedDependencies, [
    {
      module: 'importer',
      state: 'installed',
      dependency: 'appointments',
      dependencyState: 'uninstalled',
      hint: 'importer is inactive until appointments is installed: run `ward modules install appointments` and restart, or uninstall importer',
    },
  ]);
  t.deepEqual(
    report.missingDependencies,
    [{ module: 'importer', dependency: 'nowhere' }],
    'not on disk: reported once, as missing',
  );
  t.is(findingCount(report), 2);
});

test('doctor reports a dependency about to be uninstalled, and one the database has no row for', (t) => {
  const report = diagnose(
    inventoryOf({ base: {}, patients: { depends: ['base'] }, appointments: { depends: ['patients'] } }),
    rowsOf({ patients: 'to_uninstall', appointments: 'to_upgrade' }),
  );
  t.deepEqual(
    report.unsatisfiedDependencies.map((finding) => [
      finding.module,
      finding.dependency,
      finding.dependencyState,
      finding.hint,
    ]),
    [
      [
        'appointments',
        'patients',
        'to_uninstall',
        'appointments is inactive from the next restart: run `ward modules install patients` (this cancels its pending uninstall), or uninstall appointments',
      ],
    ],
  );
  const noRow = diagnose(
    inventoryOf({ base: {}, patients: { depends: ['base'] } }),
    rowsOf({ patients: 'installed' }),
  );
  t.like(noRow.unsatisfiedDependencies, [
    { module: 'patients', dependency: 'base', dependencyState: 'uninstalled' },
  ]);
});

for (const state of ['installed', 'to_install', 'to_upgrade'] as ModuleState[]) {
  test(`doctor finds nothing when the dependency is ${state}`, (t) => {
    const report = diagnose(
      inventoryOf({ base: {}, patients: { depends: ['base'] } }),
      rowsOf({ base: state, patients: 'installed' }),
    );
    t.deepEqual(report.unsatisfiedDependencies, []);
    t.is(findingCount(report), 0);
  });
}

test('doctor leaves a pending install whose dependency is not installed to the restart plan', (t) => {
  const report = diagnose(
    inventoryOf({ base: {}, patients: { depends: ['base'] } }),
    rowsOf({ base: 'uninstalled', patients: 'to_install' }),
  );
  t.deepEqual(report.unsatisfiedDependencies, []);
});

test('doctor lists a module inactive through an inactive dependency, naming the module to install', (t) => {
  const report = diagnose(
    inventoryOf({ base: {}, patients: { depends: ['base'] }, appointments: { depends: ['patients'] } }),
    rowsOf({ base: 'uninstalled', patients: 'installed', appointments: 'installed' }),
  );
  t.deepEqual(
    report.unsatisfiedDependencies.map((finding) => [finding.module, finding.dependency, finding.hint]),
    [
      [
        'appointments',
        'patients',
        'patients is inactive without base; appointments is inactive until base is installed: run `ward modules install base` and restart, or uninstall appointments',
      ],
      [
        'patients',
        'base',
        'patients is inactive until base is installed: run `ward modules install base` and restart, or uninstall patients',
      ],
    ],
  );
});

test('doctor lists an inactive module once, under missing dependencies, not again for the text its row records', (t) => {
  const inventory = inventoryOf({ vitals: {}, vitals_alerts: { depends: ['vitals'] } });
  const rows = rowsOf({ vitals: 'uninstalled', vitals_alerts: 'installed' });
  const [alerts] = findInactive(inventory, rows);
  const recorded = rows.map((row) =>
    row.name === 'vitals_alerts' ? { ...row, error_message: inactiveMessage(alerts!) } : row,
  );
  const report = diagnose(inventory, recorded);
  t.like(report.unsatisfiedDependencies, [{ module: 'vitals_alerts', dependency: 'vitals' }]);
  t.deepEqual(report.errored, []);
  t.is(findingCount(report), 1);

  const reinstalled = recorded.map((row) =>
    row.name === 'vitals' ? { ...row, state: 'to_install' as const } : row,
  );
  const pending = diagnose(inventory, reinstalled);
  t.deepEqual(pending.unsatisfiedDependencies, []);
  t.like(pending.errored, [{ module: 'vitals_alerts' }], 'inactive until the restart installs vitals');
});
