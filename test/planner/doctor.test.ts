import test from 'ava';
import { diagnose, findingCount } from '../../src/planner/doctor.ts';
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
      hint: 'run `ward modules install appointments` and restart, or uninstall importer',
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
        'run `ward modules install patients` and restart (this cancels its pending uninstall), or uninstall appointments',
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
