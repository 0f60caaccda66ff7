/**
 * Version ranges (`requires`) in the planner and the doctor: an install or upgrade that would leave
 * a module outside a range it requires is refused, naming the module, the range and the version;
 * `--cascade` upgrades the dependents that have a fitting version on disk, `--force` plans anyway
 * and lists what it leaves broken; doctor reports a broken range.
 */
import test from 'ava';
import { diagnose } from '../../src/planner/doctor.ts';
import { plan } from '../../src/planner/planner.ts';
import { refusalToError } from '../../src/planner/refusals.ts';
import type { PlanResult, Request } from '../../src/planner/types.ts';
import { inventoryOf, rowsOf } from '../helpers/inventory.ts';

const upgrade = (name: string, flags: { force?: boolean; cascade?: boolean } = {}): Request => ({
  kind: 'upgrade',
  name,
  force: flags.force ?? false,
  cascade: flags.cascade ?? false,
});

const steps = (result: PlanResult): string[] =>
  result.ok
    ? result.plan.actions.map(
        (action) =>
          `${action.kind} ${action.module} ${action.fromVersion ?? '-'} -> ${action.toVersion ?? '-'} (${action.reason.kind})`,
      )
    : [`refused: ${refusalToError(result.refusal).message}`];

/** documents 2.0.0 is on disk; reports 1.0.0 is installed and was installed requiring documents ^1.0.0. */
const disk = (reports: { version: string; range: string }) =>
  inventoryOf({
    documents: { version: '2.0.0' },
    reports: { version: reports.version, depends: ['documents'], requires: { documents: reports.range } },
  });
const installed = rowsOf({ documents: ['installed', '1.0.0'], reports: ['installed', '1.0.0'] });
const recorded = new Map([['reports', { documents: '^1.0.0' }]]);

test('an upgrade that leaves an installed dependent outside its range is refused, naming the module, the range and the version', (t) => {
  const result = plan(
    disk({ version: '1.0.0', range: '^1.0.0' }),
    installed,
    upgrade('documents'),
    [],
    recorded,
  );
  t.false(result.ok);
  if (result.ok) return;
  const error = refusalToError(result.refusal);
  t.is(error.code, 'out_of_range');
  t.is(
    error.message,
    'upgrading documents would leave modules outside a version range they require: reports 1.0.0 requires documents ^1.0.0, and documents would be 2.0.0',
  );
  t.regex(error.hint, /^put a version of reports that accepts documents 2\.0\.0 on disk .*; or pass --force/);
});

test("the installed version's recorded ranges count, not those of a newer version already on disk", (t) => {
  const newer = disk({ version: '1.1.0', range: '^2.0.0' });
  const result = plan(newer, installed, upgrade('documents'), [], recorded);
  t.false(result.ok);
  if (!result.ok)
    t.regex(
      refusalToError(result.refusal).hint,
      /^pass --cascade to upgrade reports to 1\.1\.0, its version on disk, which accepts documents 2\.0\.0;/,
    );
  t.deepEqual(steps(plan(newer, installed, upgrade('documents'), [], new Map())), [
    'upgrade documents 1.0.0 -> 2.0.0 (requested)',
  ]);
});

test('--cascade upgrades the dependent to its version on disk when that version accepts the new one', (t) => {
  const result = plan(
    disk({ version: '1.1.0', range: '^2.0.0' }),
    installed,
    upgrade('documents', { cascade: true }),
    [],
    recorded,
  );
  t.deepEqual(steps(result), [
    'upgrade documents 1.0.0 -> 2.0.0 (requested)',
    'upgrade reports 1.0.0 -> 1.1.0 (dependent)',
  ]);
});

test('--cascade is still refused when the version on disk does not accept the new one either', (t) => {
  const result = plan(
    disk({ version: '1.1.0', range: '^1.0.0' }),
    installed,
    upgrade('documents', { cascade: true }),
    [],
    recorded,
  );
  t.deepEqual(steps(result), [
    'refused: upgrading documents would leave modules outside a version range they require: reports 1.1.0 requires documents ^1.0.0, and documents would be 2.0.0',
  ]);
});

test('--force plans the upgrade alone and lists the ranges it leaves broken', (t) => {
  const result = plan(
    disk({ version: '1.0.0', range: '^1.0.0' }),
    installed,
    upgrade('documents', { force: true }),
    [],
    recorded,
  );
  t.true(result.ok);
  if (!result.ok) return;
  t.deepEqual(steps(result), ['upgrade documents 1.0.0 -> 2.0.0 (requested)']);
  t.deepEqual(result.plan.rangeBreaks, [
    { module: 'reports', moduleVersion: '1.0.0', dependency: 'documents', range: '^1.0.0', version: '2.0.0' },
  ]);
});

test('an install whose range an installed dependency is outside is refused, and says to upgrade the dependency first', (t) => {
  const inventory = inventoryOf({
    documents: { version: '2.0.0' },
    reports: { version: '1.0.0', depends: ['documents'], requires: { documents: '>=2.0.0' } },
  });
  const result = plan(inventory, rowsOf({ documents: ['installed', '1.0.0'] }), {
    kind: 'install',
    name: 'reports',
  });
  t.false(result.ok);
  if (result.ok) return;
  const error = refusalToError(result.refusal);
  t.is(
    error.message,
    'installing reports would leave modules outside a version range they require: reports 1.0.0 requires documents >=2.0.0, and documents would be 1.0.0',
  );
  t.is(
    error.hint,
    'upgrade documents first (`ward modules upgrade documents`: its version on disk, 2.0.0, is in >=2.0.0)',
  );
});

test('an install that brings its dependency along checks the range against the version it installs', (t) => {
  const inventory = inventoryOf({
    documents: { version: '1.4.0' },
    reports: { version: '1.0.0', depends: ['documents'], requires: { documents: '~1.4.0' } },
  });
  t.deepEqual(steps(plan(inventory, [], { kind: 'install', name: 'reports' })), [
    'install documents - -> 1.4.0 (dependency)',
    'install reports - -> 1.0.0 (requested)',
  ]);
  const older = inventoryOf({
    documents: { version: '1.3.9' },
    reports: { version: '1.0.0', depends: ['documents'], requires: { documents: '~1.4.0' } },
  });
  t.regex(
    steps(plan(older, [], { kind: 'install', name: 'reports' }))[0] ?? '',
    /documents ~1\.4\.0, and documents would be 1\.3\.9$/,
  );
});

test('doctor reports a broken range with its fix, and nothing when every range holds', (t) => {
  const report = diagnose(
    disk({ version: '1.1.0', range: '^2.0.0' }),
    rowsOf({ documents: ['installed', '2.0.0'], reports: ['installed', '1.0.0'] }),
    [],
    [],
    undefined,
    recorded,
  );
  t.deepEqual(report.brokenRanges, [
    {
      module: 'reports',
      moduleVersion: '1.0.0',
      dependency: 'documents',
      range: '^1.0.0',
      version: '2.0.0',
      message: 'reports 1.0.0 requires documents ^1.0.0, and documents is 2.0.0',
      hint: 'upgrade reports to 1.1.0, its version on disk, which accepts documents 2.0.0 (`ward modules upgrade reports`)',
    },
  ]);
  const fine = diagnose(disk({ version: '1.0.0', range: '^1.0.0' }), installed, [], [], undefined, recorded);
  t.deepEqual(fine.brokenRanges, []);
});
