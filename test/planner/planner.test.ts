import test from 'ava';
import type { ExecutionContext } from 'ava';
import { plan } from '../../src/planner/planner.ts';
import { refusalToError } from '../../src/planner/refusals.ts';
import type {
  Action,
  ModuleRow,
  ModuleState,
  Plan,
  PlanResult,
  Reason,
  Refusal,
  Request,
  TableReference,
} from '../../src/planner/types.ts';
import { inventoryOf, manifestProblem, rowsOf } from '../helpers/inventory.ts';

function planned(t: ExecutionContext, result: PlanResult): Plan {
  if (!result.ok) t.fail(`expected a plan, got refusal ${JSON.stringify(result.refusal)}`);
  return result.ok ? result.plan : { actions: [], unchanged: [], blocked: [], inactive: [] };
}

function refused(t: ExecutionContext, result: PlanResult): Refusal | undefined {
  if (result.ok) t.fail(`expected a refusal, got plan ${JSON.stringify(result.plan)}`);
  return result.ok ? undefined : result.refusal;
}

const describeReason = (reason: Reason): string =>
  'of' in reason ? `${reason.kind} of ${reason.of}` : reason.kind;

/** `install b (dependency of a)`: one line per action, so a test reads like the plan it expects. */
const steps = (actions: Action[]): string[] =>
  actions.map((action) => `${action.kind} ${action.module} (${describeReason(action.reason)})`);

const install = (name: string): Request => ({ kind: 'install', name });
const upgrade = (name: string): Request => ({ kind: 'upgrade', name, force: false, cascade: false });
const uninstall = (name: string, flags: { force?: boolean; cascade?: boolean } = {}): Request => ({
  kind: 'uninstall',
  name,
  force: flags.force ?? false,
  cascade: flags.cascade ?? false,
});
const reconcile: Request = { kind: 'reconcile' };

const PRESENT: ModuleState[] = ['installed', 'to_install', 'to_upgrade'];

// install

test('install of a module without a row schedules just that module at its disk version', (t) => {
  const result = plan(inventoryOf({ a: { version: '2.0.0' } }), [], install('a'));
  t.deepEqual(planned(t, result), {
    actions: [
      { kind: 'install', module: 'a', fromVersion: null, toVersion: '2.0.0', reason: { kind: 'requested' } },
    ],
    unchanged: [],
    blocked: [],
    inactive: [],
  });
});

test('install of an uninstalled module keeps the database version as fromVersion', (t) => {
  const result = plan(
    inventoryOf({ a: { version: '2.0.0' } }),
    rowsOf({ a: ['uninstalled', '1.0.0'] }),
    install('a'),
  );
  t.like(planned(t, result).actions[0], { kind: 'install', fromVersion: '1.0.0', toVersion: '2.0.0' });
});

for (const state of PRESENT) {
  test(`second install does no harm: a module in ${state} is reported unchanged`, (t) => {
    const result = plan(inventoryOf({ a: {} }), rowsOf({ a: state }), install('a'));
    t.deepEqual(planned(t, result), {
      actions: [],
      unchanged: [{ module: 'a', state }],
      blocked: [],
      inactive: [],
    });
  });
}

test('install of a module in to_uninstall cancels the uninstall with an install action', (t) => {
  const result = plan(inventoryOf({ a: {} }), rowsOf({ a: ['to_uninstall', '1.0.0'] }), install('a'));
  t.deepEqual(planned(t, result).actions, [
    { kind: 'install', module: 'a', fromVersion: '1.0.0', toVersion: '1.0.0', reason: { kind: 'requested' } },
  ]);
});

test('install schedules missing dependencies before the module', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: { depends: ['c'] }, c: {} });
  t.deepEqual(steps(planned(t, plan(inventory, [], install('a'))).actions), [
    'install c (dependency of b)',
    'install b (dependency of a)',
    'install a (requested)',
  ]);
});

test('install does not reschedule dependencies that are present', (t) => {
  const inventory = inventoryOf({
    a: { depends: ['b', 'c', 'd'] },
    b: {},
    c: {},
    d: { depends: ['e'] },
    e: {},
  });
  const rows = rowsOf({ b: 'installed', c: 'to_install', d: 'to_upgrade' });
  t.deepEqual(steps(planned(t, plan(inventory, rows, install('a'))).actions), ['install a (requested)']);
});

test('install reschedules a dependency that is about to be uninstalled', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: {} });
  const rows = rowsOf({ b: ['to_uninstall', '1.0.0'] });
  t.deepEqual(planned(t, plan(inventory, rows, install('a'))).actions[0], {
    kind: 'install',
    module: 'b',
    fromVersion: '1.0.0',
    toVersion: '1.0.0',
    reason: { kind: 'dependency', of: 'a' },
  });
});

test('install schedules a shared dependency once, for the nearest module that needs it', (t) => {
  const inventory = inventoryOf({
    a: { depends: ['c', 'b'] },
    b: { depends: ['d'] },
    c: { depends: ['d'] },
    d: {},
  });
  t.deepEqual(steps(planned(t, plan(inventory, [], install('a'))).actions), [
    'install d (dependency of b)',
    'install b (dependency of a)',
    'install c (dependency of a)',
    'install a (requested)',
  ]);
});

test('install breaks ties between independent dependencies by name', (t) => {
  const inventory = inventoryOf({ a: { depends: ['z', 'm', 'b'] }, z: {}, m: {}, b: {} });
  t.deepEqual(
    planned(t, plan(inventory, [], install('a'))).actions.map((action) => action.module),
    ['b', 'm', 'z', 'a'],
  );
});

test('install refuses a module that is neither on disk nor in the database as unknown', (t) => {
  t.deepEqual(refused(t, plan(inventoryOf({}), [], install('ghost'))), {
    code: 'unknown_module',
    module: 'ghost',
  });
});

test('install refuses an uninstalled module whose code is gone as unknown', (t) => {
  const result = plan(inventoryOf({}), rowsOf({ ghost: 'uninstalled' }), install('ghost'));
  t.deepEqual(refused(t, result), { code: 'unknown_module', module: 'ghost' });
});

for (const state of [...PRESENT, 'to_uninstall'] as ModuleState[]) {
  test(`install refuses a module in ${state} whose code is gone as not on disk`, (t) => {
    const result = plan(inventoryOf({}), rowsOf({ ghost: state }), install('ghost'));
    t.deepEqual(refused(t, result), { code: 'not_on_disk', module: 'ghost' });
  });
}

test('install refuses a module whose manifest has problems', (t) => {
  const problem = manifestProblem('a');
  const result = plan(inventoryOf({}, [problem]), [], install('a'));
  t.deepEqual(refused(t, result), { code: 'manifest_error', module: 'a', problems: [problem] });
});

test('install refuses when a dependency is not on disk, naming the module that needs it', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: { depends: ['gone'] } });
  t.deepEqual(refused(t, plan(inventory, [], install('a'))), {
    code: 'missing_dependency',
    module: 'b',
    dependency: 'gone',
  });
});

test('install refuses when a dependency has a broken manifest, showing its problems', (t) => {
  const problem = manifestProblem('b');
  const inventory = inventoryOf({ a: { depends: ['b'] } }, [problem]);
  t.deepEqual(refused(t, plan(inventory, [], install('a'))), {
    code: 'manifest_error',
    module: 'b',
    problems: [problem],
  });
});

test('install refuses a dependency cycle and shows it from its smallest name', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: { depends: ['c'] }, c: { depends: ['a'] } });
  for (const name of ['a', 'b', 'c']) {
    t.deepEqual(refused(t, plan(inventory, [], install(name))), {
      code: 'dependency_cycle',
      path: ['a', 'b', 'c', 'a'],
    });
  }
});

test('install refuses a module that depends on itself', (t) => {
  const inventory = inventoryOf({ a: { depends: ['a'] } });
  t.deepEqual(refused(t, plan(inventory, [], install('a'))), { code: 'dependency_cycle', path: ['a', 'a'] });
});

test('install refuses a cycle further down the chain', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: { depends: ['c'] }, c: { depends: ['b'] } });
  t.deepEqual(refused(t, plan(inventory, [], install('a'))), {
    code: 'dependency_cycle',
    path: ['b', 'c', 'b'],
  });
});

test('install does not refuse a cycle that only closes through a present module', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: { depends: ['a'] } });
  t.deepEqual(steps(planned(t, plan(inventory, rowsOf({ b: 'installed' }), install('a'))).actions), [
    'install a (requested)',
  ]);
});

// upgrade

test('upgrade of an installed module goes from the database version to the disk version', (t) => {
  const result = plan(
    inventoryOf({ a: { version: '1.1.0' } }),
    rowsOf({ a: ['installed', '1.0.0'] }),
    upgrade('a'),
  );
  t.deepEqual(planned(t, result), {
    actions: [
      {
        kind: 'upgrade',
        module: 'a',
        fromVersion: '1.0.0',
        toVersion: '1.1.0',
        reason: { kind: 'requested' },
      },
    ],
    unchanged: [],
    blocked: [],
    inactive: [],
  });
});

test('upgrade to a lower disk version is allowed because the versions differ', (t) => {
  const result = plan(
    inventoryOf({ a: { version: '0.9.0' } }),
    rowsOf({ a: ['installed', '1.0.0'] }),
    upgrade('a'),
  );
  t.like(planned(t, result).actions[0], { kind: 'upgrade', fromVersion: '1.0.0', toVersion: '0.9.0' });
});

test('upgrade with equal disk and database versions refuses as already at the version', (t) => {
  const result = plan(
    inventoryOf({ a: { version: '1.0.0' } }),
    rowsOf({ a: ['installed', '1.0.0'] }),
    upgrade('a'),
  );
  t.deepEqual(refused(t, result), { code: 'already_at_version', module: 'a', version: '1.0.0' });
});

test('second upgrade does no harm: a module in to_upgrade is reported unchanged', (t) => {
  const result = plan(inventoryOf({ a: { version: '2.0.0' } }), rowsOf({ a: 'to_upgrade' }), upgrade('a'));
  t.deepEqual(planned(t, result), {
    actions: [],
    unchanged: [{ module: 'a', state: 'to_upgrade' }],
    blocked: [],
    inactive: [],
  });
});

for (const [state, rows] of [
  ['uninstalled', []],
  ['uninstalled', rowsOf({ a: 'uninstalled' })],
  ['to_install', rowsOf({ a: 'to_install' })],
  ['to_uninstall', rowsOf({ a: 'to_uninstall' })],
] as Array<[ModuleState, ModuleRow[]]>) {
  test(`upgrade refuses a module that is not installed (${rows.length === 0 ? 'no row' : state})`, (t) => {
    const result = plan(inventoryOf({ a: { version: '2.0.0' } }), rows, upgrade('a'));
    t.deepEqual(refused(t, result), { code: 'not_installed', module: 'a', state });
  });
}

test('upgrade installs the dependencies the new version needs first', (t) => {
  const inventory = inventoryOf({
    a: { version: '2.0.0', depends: ['b', 'old'] },
    b: { depends: ['c'] },
    c: {},
    old: {},
  });
  const rows = rowsOf({ a: ['installed', '1.0.0'], old: 'installed' });
  t.deepEqual(steps(planned(t, plan(inventory, rows, upgrade('a'))).actions), [
    'install c (dependency of b)',
    'install b (new_dependency of a)',
    'upgrade a (requested)',
  ]);
});

test('upgrade refuses a new dependency that is not on disk', (t) => {
  const inventory = inventoryOf({ a: { version: '2.0.0', depends: ['gone'] } });
  const result = plan(inventory, rowsOf({ a: ['installed', '1.0.0'] }), upgrade('a'));
  t.deepEqual(refused(t, result), { code: 'missing_dependency', module: 'a', dependency: 'gone' });
});

test('upgrade refuses when a new dependency depends back on the upgraded module', (t) => {
  const inventory = inventoryOf({ a: { version: '2.0.0', depends: ['b'] }, b: { depends: ['a'] } });
  const result = plan(inventory, rowsOf({ a: ['installed', '1.0.0'] }), upgrade('a'));
  t.deepEqual(refused(t, result), { code: 'dependency_cycle', path: ['a', 'b', 'a'] });
});

test('upgrade refuses an unknown module', (t) => {
  t.deepEqual(refused(t, plan(inventoryOf({}), [], upgrade('ghost'))), {
    code: 'unknown_module',
    module: 'ghost',
  });
});

test('upgrade refuses an installed module whose code is gone as not on disk', (t) => {
  const result = plan(inventoryOf({}), rowsOf({ ghost: 'installed' }), upgrade('ghost'));
  t.deepEqual(refused(t, result), { code: 'not_on_disk', module: 'ghost' });
});

test('upgrade refuses a module whose manifest has problems', (t) => {
  const problem = manifestProblem('a');
  const result = plan(inventoryOf({}, [problem]), rowsOf({ a: 'installed' }), upgrade('a'));
  t.deepEqual(refused(t, result), { code: 'manifest_error', module: 'a', problems: [problem] });
});

// uninstall

for (const state of PRESENT) {
  test(`uninstall of a module in ${state} schedules its uninstall`, (t) => {
    const result = plan(inventoryOf({ a: {} }), rowsOf({ a: [state, '1.0.0'] }), uninstall('a'));
    t.deepEqual(planned(t, result), {
      actions: [
        {
          kind: 'uninstall',
          module: 'a',
          fromVersion: '1.0.0',
          toVersion: null,
          reason: { kind: 'requested' },
        },
      ],
      unchanged: [],
      blocked: [],
      inactive: [],
    });
  });
}

for (const state of ['uninstalled', 'to_uninstall'] as ModuleState[]) {
  test(`second uninstall does no harm: a module in ${state} is reported unchanged`, (t) => {
    const result = plan(inventoryOf({ a: {} }), rowsOf({ a: state }), uninstall('a'));
    t.deepEqual(planned(t, result), {
      actions: [],
      unchanged: [{ module: 'a', state }],
      blocked: [],
      inactive: [],
    });
  });
}

test('uninstall of a module on disk without a row is reported unchanged as uninstalled', (t) => {
  const result = plan(inventoryOf({ a: {} }), [], uninstall('a'));
  t.deepEqual(planned(t, result).unchanged, [{ module: 'a', state: 'uninstalled' }]);
});

test('uninstall refuses a module with neither code nor row as unknown', (t) => {
  t.deepEqual(refused(t, plan(inventoryOf({}), [], uninstall('ghost'))), {
    code: 'unknown_module',
    module: 'ghost',
  });
});

test('uninstall refuses an installed module whose code is gone as not on disk', (t) => {
  const result = plan(inventoryOf({}), rowsOf({ ghost: 'installed' }), uninstall('ghost', { force: true }));
  t.deepEqual(refused(t, result), { code: 'not_on_disk', module: 'ghost' });
});

test('uninstall refuses a module whose manifest has problems', (t) => {
  const problem = manifestProblem('a');
  const result = plan(inventoryOf({}, [problem]), rowsOf({ a: 'installed' }), uninstall('a'));
  t.deepEqual(refused(t, result), { code: 'manifest_error', module: 'a', problems: [problem] });
});

for (const flags of [{}, { force: true }, { cascade: true }, { force: true, cascade: true }]) {
  test(`uninstall refuses a legacy module without a migration branch (${JSON.stringify(flags)})`, (t) => {
    const inventory = inventoryOf({ legacy_x: { migrations: false, removable: false } });
    const result = plan(inventory, rowsOf({ legacy_x: 'installed' }), uninstall('legacy_x', flags));
    t.deepEqual(refused(t, result), { code: 'no_migration_branch', module: 'legacy_x' });
  });
}

test('uninstall refuses a non-removable module', (t) => {
  const result = plan(inventoryOf({ a: { removable: false } }), rowsOf({ a: 'installed' }), uninstall('a'));
  t.deepEqual(refused(t, result), { code: 'not_removable', module: 'a' });
});

test('uninstall --force removes a non-removable module', (t) => {
  const inventory = inventoryOf({ a: { removable: false } });
  const result = plan(inventory, rowsOf({ a: 'installed' }), uninstall('a', { force: true }));
  t.deepEqual(steps(planned(t, result).actions), ['uninstall a (requested)']);
});

test('uninstall checks removable before dependents', (t) => {
  const inventory = inventoryOf({ a: { removable: false }, b: { depends: ['a'] } });
  const result = plan(inventory, rowsOf({ a: 'installed', b: 'installed' }), uninstall('a'));
  t.deepEqual(refused(t, result), { code: 'not_removable', module: 'a' });
});

test('uninstall refuses a module that present modules depend on, naming them sorted', (t) => {
  const inventory = inventoryOf({
    a: {},
    z: { depends: ['a'] },
    m: { depends: ['a'] },
    b: { depends: ['a'] },
    gone: { depends: ['a'] },
    leaving: { depends: ['a'] },
    other: {},
  });
  const rows = rowsOf({
    a: 'installed',
    z: 'installed',
    m: 'to_install',
    b: 'to_upgrade',
    gone: 'uninstalled',
    leaving: 'to_uninstall',
    other: 'installed',
  });
  t.deepEqual(refused(t, plan(inventory, rows, uninstall('a'))), {
    code: 'required_by',
    module: 'a',
    dependents: ['b', 'm', 'z'],
    references: [],
  });
});

test('uninstall --force overrides dependents: only the module is scheduled, and the plan names each dependent it leaves inactive', (t) => {
  const inventory = inventoryOf({
    a: { removable: false },
    b: { depends: ['a'] },
    c: { depends: ['a', 'b'] },
    d: { depends: ['b'] },
    gone: { depends: ['a'] },
  });
  const rows = rowsOf({
    a: 'installed',
    b: 'installed',
    c: 'to_install',
    d: 'installed',
    gone: 'uninstalled',
  });
  t.deepEqual(planned(t, plan(inventory, rows, uninstall('a', { force: true }))), {
    actions: [
      {
        kind: 'uninstall',
        module: 'a',
        fromVersion: '1.0.0',
        toVersion: null,
        reason: { kind: 'requested' },
      },
    ],
    unchanged: [],
    blocked: [],
    inactive: [
      { module: 'b', dependency: 'a' },
      { module: 'c', dependency: 'a' },
    ],
  });
});

test('uninstall without --force refuses dependents and offers --force, --cascade or uninstalling them first', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] } });
  const refusal = refused(t, plan(inventory, rowsOf({ a: 'installed', b: 'installed' }), uninstall('a')));
  t.deepEqual(refusal, { code: 'required_by', module: 'a', dependents: ['b'], references: [] });
  t.is(
    refusalToError(refusal as Refusal).hint,
    'uninstall b first, pass --cascade to uninstall them as well, or pass --force to uninstall only a and leave it installed but inactive until a is installed again',
  );
});

test('uninstall --cascade removes dependents first, transitively', (t) => {
  const inventory = inventoryOf({
    a: {},
    b: { depends: ['a'] },
    c: { depends: ['b'] },
    d: { depends: ['a', 'c'] },
    e: { depends: ['a'] },
  });
  const rows = rowsOf({ a: 'installed', b: 'installed', c: 'installed', d: 'to_install', e: 'uninstalled' });
  t.deepEqual(steps(planned(t, plan(inventory, rows, uninstall('a', { cascade: true }))).actions), [
    'uninstall d (dependent of a)',
    'uninstall c (dependent of b)',
    'uninstall b (dependent of a)',
    'uninstall a (requested)',
  ]);
});

test('uninstall --cascade of a module without dependents removes just that module', (t) => {
  const result = plan(inventoryOf({ a: {} }), rowsOf({ a: 'installed' }), uninstall('a', { cascade: true }));
  t.deepEqual(steps(planned(t, result).actions), ['uninstall a (requested)']);
});

test('uninstall --cascade refuses when a dependent is a legacy module, even with --force', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'], migrations: false } });
  const rows = rowsOf({ a: 'installed', b: 'installed' });
  for (const force of [false, true]) {
    const result = plan(inventory, rows, uninstall('a', { cascade: true, force }));
    t.deepEqual(refused(t, result), { code: 'no_migration_branch', module: 'b' });
  }
});

test('uninstall --cascade refuses a non-removable dependent unless --force', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'], removable: false } });
  const rows = rowsOf({ a: 'installed', b: 'installed' });
  t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', { cascade: true }))), {
    code: 'not_removable',
    module: 'b',
  });
  t.deepEqual(
    steps(planned(t, plan(inventory, rows, uninstall('a', { cascade: true, force: true }))).actions),
    ['uninstall b (dependent of a)', 'uninstall a (requested)'],
  );
});

test('uninstall --cascade refuses a cycle among the dependents', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a', 'c'] }, c: { depends: ['b'] } });
  const rows = rowsOf({ a: 'installed', b: 'installed', c: 'installed' });
  t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', { cascade: true }))), {
    code: 'dependency_cycle',
    path: ['b', 'c', 'b'],
  });
});

test('uninstall of a module that lists itself in depends is not held back by itself', (t) => {
  const inventory = inventoryOf({ a: { depends: ['a'] } });
  for (const flags of [{}, { cascade: true }]) {
    const result = plan(inventory, rowsOf({ a: 'installed' }), uninstall('a', flags));
    t.deepEqual(steps(planned(t, result).actions), ['uninstall a (requested)']);
  }
});

// uninstall: foreign keys between module tables

/** A foreign key from `fromTable` (owned by `fromModule`, or no module) into `toTable` of `toModule`. */
const fk = (
  fromModule: string | null,
  fromTable: string,
  toModule: string,
  toTable: string,
): TableReference => ({
  fromModule,
  fromTable,
  constraint: `${fromTable}_${toTable}_foreign`,
  toModule,
  toTable,
});

test('uninstall refuses a module whose tables present modules point into, naming each foreign key, even with --force', (t) => {
  const inventory = inventoryOf({ a: {}, b: {}, c: {} });
  const rows = rowsOf({ a: 'installed', b: 'installed', c: 'to_install' });
  const references = [fk('c', 'c_y', 'a', 'a_t'), fk('b', 'b_x', 'a', 'a_t'), fk('b', 'b_z', 'a', 'a_u')];
  for (const force of [false, true])
    t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', { force }), references)), {
      code: 'referenced_by',
      module: 'a',
      referencers: ['b', 'c'],
      references: [references[1], references[2], references[0]],
    });
});

test('uninstall names modules that depend on it and modules that point into it together as required by, --force included', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] }, c: { depends: ['a'] } });
  const rows = rowsOf({ a: 'installed', b: 'installed', c: 'installed' });
  const references = [fk('c', 'c_x', 'a', 'a_t')];
  for (const force of [false, true]) {
    const refusal = refused(t, plan(inventory, rows, uninstall('a', { force }), references));
    t.deepEqual(refusal, { code: 'required_by', module: 'a', dependents: ['b', 'c'], references });
    t.is(
      refusalToError(refusal as Refusal).hint,
      'uninstall b, c first, or pass --cascade to uninstall them as well; --force does not override foreign keys',
    );
  }
});

test('uninstall ignores foreign keys within the module and from modules already leaving', (t) => {
  const inventory = inventoryOf({ a: {}, b: {} });
  const rows = rowsOf({ a: 'installed', b: 'to_uninstall' });
  const references = [fk('a', 'a_child', 'a', 'a_t'), fk('b', 'b_x', 'a', 'a_t')];
  const result = plan(inventory, rows, uninstall('a'), references);
  t.deepEqual(steps(planned(t, result).actions), ['uninstall a (requested)']);
});

test('uninstall refuses a module a table no present module owns points into, with and without --cascade', (t) => {
  const inventory = inventoryOf({ a: {}, b: {}, gone: {} });
  const rows = rowsOf({ a: 'installed', b: 'installed', gone: 'uninstalled' });
  const references = [
    fk(null, 'audit_log', 'a', 'a_t'),
    fk('gone', 'gone_x', 'a', 'a_t'),
    fk('b', 'b_x', 'a', 'a_t'),
  ];
  for (const flags of [{}, { force: true }, { cascade: true }, { cascade: true, force: true }])
    t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', flags), references)), {
      code: 'referenced_by_unowned',
      module: 'a',
      references: [references[0], references[1]],
    });
});

test('uninstall --cascade refuses when a table no module owns points into a module it would take along', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] } });
  const rows = rowsOf({ a: 'installed', b: 'installed' });
  const references = [fk(null, 'notes', 'b', 'b_t')];
  t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', { cascade: true }), references)), {
    code: 'referenced_by_unowned',
    module: 'a',
    references,
  });
});

test('uninstall --cascade takes along the modules pointing into it, referencing modules first', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] }, c: {}, d: {}, e: {} });
  const rows = rowsOf({ a: 'installed', b: 'installed', c: 'installed', d: 'installed', e: 'installed' });
  // c points into b (which needs a), d into c: the order is d, c, b, a whatever the names say.
  const references = [fk('c', 'c_x', 'b', 'b_t'), fk('d', 'd_x', 'c', 'c_t')];
  t.deepEqual(
    steps(planned(t, plan(inventory, rows, uninstall('a', { cascade: true }), references)).actions),
    [
      'uninstall d (referencer of c)',
      'uninstall c (referencer of b)',
      'uninstall b (dependent of a)',
      'uninstall a (requested)',
    ],
  );
});

test('uninstall --cascade refuses modules whose tables point into each other', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] }, c: {} });
  const rows = rowsOf({ a: 'installed', b: 'installed', c: 'installed' });
  const references = [fk('c', 'c_x', 'b', 'b_t'), fk('b', 'b_y', 'c', 'c_t')];
  t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', { cascade: true }), references)), {
    code: 'dependency_cycle',
    path: ['b', 'c', 'b'],
  });
});

test('uninstall --cascade still refuses a non-removable module that points into it unless --force', (t) => {
  const inventory = inventoryOf({ a: {}, b: { removable: false } });
  const rows = rowsOf({ a: 'installed', b: 'installed' });
  const references = [fk('b', 'b_x', 'a', 'a_t')];
  t.deepEqual(refused(t, plan(inventory, rows, uninstall('a', { cascade: true }), references)), {
    code: 'not_removable',
    module: 'b',
  });
});

// reconcile

test('reconcile with nothing pending plans nothing', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] } });
  const rows = rowsOf({ a: 'installed', b: 'uninstalled' });
  t.deepEqual(planned(t, plan(inventory, rows, reconcile)), {
    actions: [],
    unchanged: [],
    blocked: [],
    inactive: [],
  });
});

test('reconcile runs uninstalls dependents first, then installs and upgrades dependencies first', (t) => {
  const inventory = inventoryOf({
    base: {},
    core: { version: '2.0.0', depends: ['base'] },
    app: { depends: ['core', 'lib'] },
    lib: {},
    old: { depends: ['older'] },
    older: {},
    kept: {},
  });
  const rows = rowsOf({
    base: 'installed',
    core: ['to_upgrade', '1.0.0'],
    app: ['to_install', null],
    lib: ['to_install', null],
    old: 'to_uninstall',
    older: 'to_uninstall',
    kept: 'installed',
  });
  const result = planned(t, plan(inventory, rows, reconcile));
  t.deepEqual(steps(result.actions), [
    'uninstall old (pending)',
    'uninstall older (pending)',
    'upgrade core (pending)',
    'install lib (pending)',
    'install app (pending)',
  ]);
  t.like(result.actions[2], { fromVersion: '1.0.0', toVersion: '2.0.0' });
  t.like(result.actions[4], { fromVersion: null, toVersion: '1.0.0' });
  t.like(result.actions[0], { fromVersion: '1.0.0', toVersion: null });
  t.deepEqual(result.blocked, []);
});

test('reconcile still upgrades a to_upgrade module whose versions are equal', (t) => {
  const result = plan(inventoryOf({ a: {} }), rowsOf({ a: ['to_upgrade', '1.0.0'] }), reconcile);
  t.deepEqual(planned(t, result).actions, [
    { kind: 'upgrade', module: 'a', fromVersion: '1.0.0', toVersion: '1.0.0', reason: { kind: 'pending' } },
  ]);
});

test('reconcile uninstalls a non-removable module: --force was decided when it was scheduled', (t) => {
  const result = plan(inventoryOf({ a: { removable: false } }), rowsOf({ a: 'to_uninstall' }), reconcile);
  t.deepEqual(steps(planned(t, result).actions), ['uninstall a (pending)']);
});

test('reconcile blocks a pending install whose code is gone and the modules waiting for it', (t) => {
  const inventory = inventoryOf({ b: { depends: ['gone'] }, c: { depends: ['b'] }, free: {} });
  const rows = rowsOf({ gone: 'to_install', b: 'to_install', c: 'to_upgrade', free: 'to_install' });
  t.deepEqual(planned(t, plan(inventory, rows, reconcile)), {
    actions: [
      {
        kind: 'install',
        module: 'free',
        fromVersion: '1.0.0',
        toVersion: '1.0.0',
        reason: { kind: 'pending' },
      },
    ],
    unchanged: [],
    blocked: [
      { module: 'b', refusal: { code: 'blocked_by', module: 'b', blocker: 'gone' } },
      { module: 'c', refusal: { code: 'blocked_by', module: 'c', blocker: 'b' } },
      { module: 'gone', refusal: { code: 'not_on_disk', module: 'gone' } },
    ],
    inactive: [],
  });
});

test('reconcile blocks a pending install whose dependency is missing from disk', (t) => {
  const inventory = inventoryOf({ a: { depends: ['nowhere'] } });
  t.deepEqual(planned(t, plan(inventory, rowsOf({ a: 'to_install' }), reconcile)).blocked, [
    { module: 'a', refusal: { code: 'missing_dependency', module: 'a', dependency: 'nowhere' } },
  ]);
});

test('reconcile blocks a pending install whose dependency is not installed', (t) => {
  const inventory = inventoryOf({ a: { depends: ['b'] }, b: {}, c: { depends: ['d'] }, d: {} });
  const rows = rowsOf({ a: 'to_install', b: 'uninstalled', c: 'to_install', d: 'to_uninstall' });
  const result = planned(t, plan(inventory, rows, reconcile));
  t.deepEqual(steps(result.actions), ['uninstall d (pending)']);
  t.deepEqual(result.blocked, [
    { module: 'a', refusal: { code: 'not_installed', module: 'b', state: 'uninstalled' } },
    { module: 'c', refusal: { code: 'not_installed', module: 'd', state: 'to_uninstall' } },
  ]);
  t.deepEqual(result.inactive, [{ module: 'c', dependency: 'd' }]);
});

test('reconcile blocks pending modules with manifest problems and their dependents', (t) => {
  const problem = manifestProblem('a');
  const inventory = inventoryOf({ b: { depends: ['a'] } }, [problem]);
  const result = planned(t, plan(inventory, rowsOf({ a: 'to_install', b: 'to_install' }), reconcile));
  t.deepEqual(result.blocked, [
    { module: 'a', refusal: { code: 'manifest_error', module: 'a', problems: [problem] } },
    { module: 'b', refusal: { code: 'blocked_by', module: 'b', blocker: 'a' } },
  ]);
});

test('reconcile blocks a cycle among pending modules and lets the rest proceed', (t) => {
  const inventory = inventoryOf({
    a: { depends: ['b'] },
    b: { depends: ['a'] },
    c: { depends: ['a'] },
    d: {},
  });
  const rows = rowsOf({ a: 'to_install', b: 'to_install', c: 'to_install', d: 'to_install' });
  const result = planned(t, plan(inventory, rows, reconcile));
  t.deepEqual(steps(result.actions), ['install d (pending)']);
  t.deepEqual(result.blocked, [
    { module: 'a', refusal: { code: 'dependency_cycle', path: ['a', 'b', 'a'] } },
    { module: 'b', refusal: { code: 'dependency_cycle', path: ['a', 'b', 'a'] } },
    { module: 'c', refusal: { code: 'blocked_by', module: 'c', blocker: 'a' } },
  ]);
});

test('reconcile blocks a pending uninstall of a legacy module or a module whose code is gone', (t) => {
  const inventory = inventoryOf({ legacy_x: { migrations: false }, fine: {} });
  const rows = rowsOf({ legacy_x: 'to_uninstall', ghost: 'to_uninstall', fine: 'to_uninstall' });
  const result = planned(t, plan(inventory, rows, reconcile));
  t.deepEqual(steps(result.actions), ['uninstall fine (pending)']);
  t.deepEqual(result.blocked, [
    { module: 'ghost', refusal: { code: 'not_on_disk', module: 'ghost' } },
    { module: 'legacy_x', refusal: { code: 'no_migration_branch', module: 'legacy_x' } },
  ]);
});

test('reconcile keeps a dependency whose pending dependent cannot be uninstalled', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'], migrations: false } });
  const result = planned(t, plan(inventory, rowsOf({ a: 'to_uninstall', b: 'to_uninstall' }), reconcile));
  t.deepEqual(result.actions, []);
  t.deepEqual(result.blocked, [
    { module: 'a', refusal: { code: 'blocked_by', module: 'a', blocker: 'b' } },
    { module: 'b', refusal: { code: 'no_migration_branch', module: 'b' } },
  ]);
});

test('reconcile applies a pending uninstall that a present module depends on (--force) and names the module it leaves inactive', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] }, c: { depends: ['b'] }, d: {} });
  const rows = rowsOf({ a: 'to_uninstall', b: 'to_uninstall', c: 'installed', d: 'to_uninstall' });
  const result = planned(t, plan(inventory, rows, reconcile));
  t.deepEqual(steps(result.actions), [
    'uninstall b (pending)',
    'uninstall a (pending)',
    'uninstall d (pending)',
  ]);
  t.deepEqual(result.blocked, []);
  t.deepEqual(result.inactive, [{ module: 'c', dependency: 'b' }]);
});

test('reconcile keeps a pending uninstall whose tables a present module points into, and what it needs', (t) => {
  const inventory = inventoryOf({ a: {}, b: { depends: ['a'] }, c: { depends: ['b'] }, e: {} });
  const rows = rowsOf({ a: 'to_uninstall', b: 'to_uninstall', c: 'installed', e: 'installed' });
  const references = [fk('c', 'c_x', 'b', 'b_t'), fk('e', 'e_x', 'b', 'b_t')];
  const result = planned(t, plan(inventory, rows, reconcile, references));
  t.deepEqual(result.actions, []);
  t.deepEqual(result.blocked, [
    { module: 'a', refusal: { code: 'blocked_by', module: 'a', blocker: 'b' } },
    { module: 'b', refusal: { code: 'required_by', module: 'b', dependents: ['c', 'e'], references } },
  ]);
  t.deepEqual(result.inactive, []);
});

test('reconcile uninstalls a module whose tables point into another module before that module', (t) => {
  const inventory = inventoryOf({ a: {}, z: {} });
  const references = [fk('z', 'z_x', 'a', 'a_t')];
  const rows = rowsOf({ a: 'to_uninstall', z: 'to_uninstall' });
  t.deepEqual(steps(planned(t, plan(inventory, rows, reconcile, references)).actions), [
    'uninstall z (pending)',
    'uninstall a (pending)',
  ]);
});

test('reconcile blocks a pending uninstall that a present module points into, as the CLI refuses it', (t) => {
  const inventory = inventoryOf({ a: {}, b: {} });
  const rows = rowsOf({ a: 'to_uninstall', b: 'installed' });
  const references = [fk('b', 'b_x', 'a', 'a_t')];
  t.deepEqual(planned(t, plan(inventory, rows, reconcile, references)).blocked, [
    { module: 'a', refusal: { code: 'referenced_by', module: 'a', referencers: ['b'], references } },
  ]);
});

test('reconcile leaves foreign keys from tables no module owns to the check step', (t) => {
  const inventory = inventoryOf({ a: {} });
  const references = [fk(null, 'notes', 'a', 'a_t')];
  t.deepEqual(
    steps(planned(t, plan(inventory, rowsOf({ a: 'to_uninstall' }), reconcile, references)).actions),
    ['uninstall a (pending)'],
  );
});

test('reconcile uninstalls a module that lists itself in depends', (t) => {
  const result = plan(inventoryOf({ a: { depends: ['a'] } }), rowsOf({ a: 'to_uninstall' }), reconcile);
  t.deepEqual(steps(planned(t, result).actions), ['uninstall a (pending)']);
});

test('reconcile blocks a pending install of a module that lists itself in depends', (t) => {
  const result = plan(inventoryOf({ a: { depends: ['a'] } }), rowsOf({ a: 'to_install' }), reconcile);
  t.deepEqual(planned(t, result).blocked, [
    { module: 'a', refusal: { code: 'dependency_cycle', path: ['a', 'a'] } },
  ]);
});

test('reconcile never touches installed or uninstalled modules', (t) => {
  const inventory = inventoryOf({ a: { version: '9.0.0', depends: ['gone'] }, b: {} });
  const rows = rowsOf({ a: ['installed', '1.0.0'], b: 'uninstalled' });
  t.deepEqual(planned(t, plan(inventory, rows, reconcile)), {
    actions: [],
    unchanged: [],
    blocked: [],
    inactive: [],
  });
});

// determinism

test('the plan does not depend on the order of rows, disk modules or depends', (t) => {
  const specs: Record<string, { depends?: string[] }> = {
    a: { depends: ['c', 'b'] },
    b: { depends: ['d'] },
    c: { depends: ['d'] },
    d: {},
    e: {},
  };
  const reversed = Object.fromEntries(
    Object.entries(specs)
      .reverse()
      .map(([name, spec]) => [name, { depends: [...(spec.depends ?? [])].reverse() }]),
  );
  const cases: Array<[ModuleRow[], Request]> = [
    [[], install('a')],
    [
      rowsOf({ a: 'installed', b: 'installed', c: 'installed', d: 'installed' }),
      uninstall('d', { cascade: true }),
    ],
    [
      rowsOf({ a: 'to_install', b: 'to_install', c: 'to_install', d: 'to_install', e: 'to_uninstall' }),
      reconcile,
    ],
  ];
  for (const [rows, request] of cases) {
    t.deepEqual(
      plan(inventoryOf(specs), rows, request),
      plan(inventoryOf(reversed), [...rows].reverse(), request),
    );
  }
});
