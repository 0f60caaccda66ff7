import test from 'ava';
import fc from 'fast-check';
import {
  NO_PERMISSIONS,
  buildPermissionMap,
  can,
  effectiveRoles,
  expand,
  knownRoles,
  permissionsOf,
  union,
  type PermissionSet,
  type PermissionSource,
} from '../../src/auth/permissions.ts';

const set = (names: string[] = [], namespaces: string[] = [], all = false): PermissionSet => ({
  all,
  namespaces: new Set(namespaces),
  names: new Set(names),
});

const MODULES: PermissionSource[] = [
  { name: 'base', manifest: { permissions: ['base.module.restart'], role_permissions: { admin: ['*'] } } },
  {
    name: 'migration_import',
    manifest: {
      permissions: [
        'migration_import.job.read',
        'migration_import.job.write',
        'migration_import.job.execute',
        'migration_import.binary.write',
      ],
      role_permissions: { admin: ['*'] },
      navigation: [{ label: 'Import', path: '/import', permission: 'migration_import.job.read' }],
    },
  },
  {
    name: 'patients',
    manifest: {
      permissions: ['patients.patient.read', 'patients.patient.write'],
      role_permissions: { admin: ['*'], nurse: ['patients.patient.read'] },
    },
  },
];

test('can: a name, a module wildcard, everything, or nothing', (t) => {
  t.true(can(set(['a.b.read']), 'a.b.read'));
  t.false(can(set(['a.b.read']), 'a.b.write'));
  t.true(can(set([], ['a']), 'a.b.write'));
  t.false(can(set([], ['a']), 'ab.b.write'), 'a namespace is a whole first segment');
  t.false(can(set([], ['a']), 'b.a.read'));
  t.true(can(set([], [], true), 'anything.at.all'));
  t.false(can(NO_PERMISSIONS, 'a.b.read'));
});

test("a manifest's * grants all of that module's permissions, and nothing of any other module", (t) => {
  const map = buildPermissionMap(MODULES, {});
  const admin = permissionsOf(map, ['admin']);
  for (const name of map.known) t.true(can(admin, name), name);
  t.false(can(admin, 'billing.invoice.read'), 'a module that is not installed');
  t.deepEqual(expand(permissionsOf(map, ['nurse']), map.known), ['patients.patient.read']);
});

test('a manifest cannot grant permissions of another module; the grant is ignored with a warning', (t) => {
  const evil: PermissionSource = {
    name: 'evil',
    manifest: { role_permissions: { nurse: ['patients.patient.write', 'evil.thing.read'] } },
  };
  const map = buildPermissionMap([...MODULES, evil], {});
  const nurse = permissionsOf(map, ['nurse']);
  t.false(can(nurse, 'patients.patient.write'));
  t.true(can(nurse, 'evil.thing.read'));
  t.deepEqual(map.warnings, [
    'evil grants patients.patient.write to role nurse, outside its own namespace: ignored (grant it in the grants file instead)',
  ]);
});

test('a grants-file permission or namespace no installed module defines is kept, with a warning', (t) => {
  const map = buildPermissionMap(MODULES, {
    auditor: ['patients.patient.raed', 'billing.*', 'patients.*'],
  });
  t.deepEqual(map.warnings, [
    'the grants file grants patients.patient.raed to role auditor, but no installed module defines it: a typo, or a module not installed?',
    'the grants file grants billing.* to role auditor, but no installed module has that name: a typo, or a module not installed?',
  ]);
  t.true(can(permissionsOf(map, ['auditor']), 'patients.patient.raed'), 'kept: it takes effect once defined');
});

test('the grants file widens roles: names, <module>.*, and * for everything', (t) => {
  const map = buildPermissionMap(MODULES, {
    migration_operator: ['migration_import.job.read', 'migration_import.job.write'],
    sync_agent: ['migration_import.binary.write'],
    nurse: ['migration_import.job.read'],
    auditor: ['migration_import.*', 'patients.*'],
    superuser: ['*'],
    nobody: [],
  });
  const of = (role: string) => expand(permissionsOf(map, [role]), map.known);
  t.deepEqual(of('migration_operator'), ['migration_import.job.read', 'migration_import.job.write']);
  t.deepEqual(of('sync_agent'), ['migration_import.binary.write']);
  t.deepEqual(
    of('nurse'),
    ['migration_import.job.read', 'patients.patient.read'],
    'the file adds to the manifest',
  );
  t.deepEqual(of('auditor'), [
    'migration_import.binary.write',
    'migration_import.job.execute',
    'migration_import.job.read',
    'migration_import.job.write',
    'patients.patient.read',
    'patients.patient.write',
  ]);
  t.deepEqual(of('superuser'), [...map.known]);
  t.true(can(permissionsOf(map, ['superuser']), 'billing.invoice.read'));
  t.deepEqual(of('nobody'), []);
  t.deepEqual(knownRoles(map), [
    'admin',
    'auditor',
    'migration_operator',
    'nobody',
    'nurse',
    'superuser',
    'sync_agent',
  ]);
});

test('an uninstalled module grants nothing: its permissions go with it', (t) => {
  const without = buildPermissionMap(
    MODULES.filter((module) => module.name !== 'migration_import'),
    {},
  );
  t.false(can(permissionsOf(without, ['admin']), 'migration_import.job.read'));
  t.false(without.known.includes('migration_import.job.read'));
});

test('a role nothing grants anything to has no permissions', (t) => {
  const map = buildPermissionMap(MODULES, {});
  t.deepEqual(expand(permissionsOf(map, ['receptionist']), map.known), []);
  t.deepEqual(expand(permissionsOf(map, []), map.known), []);
});

test('known permissions: declared, used by navigation or routes, or granted by name', (t) => {
  const map = buildPermissionMap(
    [{ name: 'x', manifest: { navigation: [{ label: 'X', path: '/x', permission: 'x.page.view' }] } }],
    { r: ['y.thing.read', 'z.*'] },
    ['x.route.call'],
  );
  t.deepEqual(map.known, ['x.page.view', 'x.route.call', 'y.thing.read']);
});

test('a scoped token acts with its one role, and only while its user holds it', (t) => {
  t.deepEqual(effectiveRoles(['admin', 'sync_agent'], null), ['admin', 'sync_agent']);
  t.deepEqual(effectiveRoles(['admin', 'sync_agent'], 'sync_agent'), ['sync_agent']);
  t.deepEqual(effectiveRoles(['admin'], 'sync_agent'), []);
  t.deepEqual(effectiveRoles([], null), []);
});

const segment = fc.constantFrom('a', 'b', 'c');
const permission = fc.tuple(segment, segment, segment).map((parts) => parts.join('.'));
const permissionSet = fc
  .record({ all: fc.boolean(), namespaces: fc.array(segment), names: fc.array(permission) })
  .map(({ all, namespaces, names }) => set(names, namespaces, all));

test('property: a union allows exactly what one of its sets allows', (t) => {
  fc.assert(
    fc.property(
      fc.array(permissionSet),
      permission,
      (sets, name) => can(union(sets), name) === sets.some((one) => can(one, name)),
    ),
  );
  t.pass();
});

test('property: expand lists exactly the known names the set allows, sorted and unique', (t) => {
  fc.assert(
    fc.property(permissionSet, fc.array(permission), (one, known) => {
      const expanded = expand(one, known);
      const expected = [...new Set(known.filter((name) => can(one, name)))].sort();
      return JSON.stringify(expanded) === JSON.stringify(expected);
    }),
  );
  t.pass();
});

test('property: permissionsOf is monotonic: another role never takes a permission away', (t) => {
  const grants = fc.dictionary(
    fc.constantFrom('r1', 'r2', 'r3'),
    fc.array(
      fc.oneof(
        permission,
        fc.constant('*'),
        segment.map((s) => `${s}.*`),
      ),
    ),
  );
  fc.assert(
    fc.property(
      grants,
      fc.subarray(['r1', 'r2', 'r3']),
      fc.constantFrom('r1', 'r2', 'r3'),
      permission,
      (file, roles, extra, name) => {
        const map = buildPermissionMap([], file);
        return !can(permissionsOf(map, roles), name) || can(permissionsOf(map, [...roles, extra]), name);
      },
    ),
  );
  t.pass();
});
