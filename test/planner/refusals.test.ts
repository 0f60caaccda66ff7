import test from 'ava';
import { WardError } from '../../src/errors/ward-error.ts';
import { refusalToError } from '../../src/planner/refusals.ts';
import type { Refusal } from '../../src/planner/types.ts';
import { manifestProblem } from '../helpers/inventory.ts';

const cases: Array<[string, Refusal, { message: string; hint: string }]> = [
  [
    'unknown module points to the module list',
    { code: 'unknown_module', module: 'ghost' },
    {
      message: 'ghost is not a known module: its code is not on disk and the database has no row for it',
      hint: 'run `ward modules list` to see the modules Ward knows; a community module needs its package installed first',
    },
  ],
  [
    'not installed suggests installing the module',
    { code: 'not_installed', module: 'patients', state: 'uninstalled' },
    {
      message: 'patients is not installed (state uninstalled)',
      hint: 'run `ward modules install patients` first',
    },
  ],
  [
    'not installed while the install is pending suggests a restart',
    { code: 'not_installed', module: 'patients', state: 'to_install' },
    {
      message: 'patients is not installed (state to_install)',
      hint: 'patients is scheduled for installation; run `ward modules restart` to apply it first',
    },
  ],
  [
    'missing dependency names both modules',
    { code: 'missing_dependency', module: 'billing', dependency: 'ledger' },
    {
      message: 'billing depends on ledger, which is not found on disk',
      hint: 'install the package that provides ledger, or remove it from "depends" in the manifest of billing',
    },
  ],
  [
    'dependency cycle shows the path with arrows',
    { code: 'dependency_cycle', path: ['a', 'b', 'c', 'a'] },
    {
      message: 'modules depend on each other in a cycle: a -> b -> c -> a',
      hint: 'remove one of these dependencies from its module\'s "depends"; modules in a cycle cannot be installed in any order',
    },
  ],
  [
    'already at version uses the SPEC wording',
    { code: 'already_at_version', module: 'patients', version: '1.4.0' },
    {
      message: 'patients is already at the declared version 1.4.0',
      hint: 'put the new version of patients on disk (update its package) first, then run `ward modules upgrade patients`',
    },
  ],
  [
    'not removable mentions --force',
    { code: 'not_removable', module: 'patients' },
    {
      message: 'patients is not removable (its manifest says "removable": false)',
      hint: 'pass --force to uninstall patients anyway',
    },
  ],
  [
    'no migration branch names the missing branch',
    { code: 'no_migration_branch', module: 'legacy_x' },
    {
      message:
        'legacy_x has no migration branch "legacy_x" (no migrations/ directory); legacy modules cannot be uninstalled, even with --force',
      hint: 'keep legacy_x installed, or give it a migrations/ directory so its tables can be downgraded',
    },
  ],
  [
    'required by lists the dependents and offers --cascade, and --force to leave them inactive',
    { code: 'required_by', module: 'patients', dependents: ['billing', 'scheduling'], references: [] },
    {
      message: 'patients is required by billing, scheduling',
      hint: 'uninstall billing, scheduling first, pass --cascade to uninstall them as well, or pass --force to uninstall only patients and leave them installed but inactive until patients is installed again',
    },
  ],
  [
    "required by also names the foreign keys into the module's tables",
    {
      code: 'required_by',
      module: 'patients',
      dependents: ['appointments', 'documents'],
      references: [
        {
          fromModule: 'documents',
          fromTable: 'documents_document',
          constraint: 'documents_document_patient_id_foreign',
          toModule: 'patients',
          toTable: 'patients_patient',
        },
      ],
    },
    {
      message:
        'patients is required by appointments, documents (foreign keys into its tables: documents_document.documents_document_patient_id_foreign → patients_patient)',
      hint: 'uninstall appointments, documents first, or pass --cascade to uninstall them as well; --force does not override foreign keys',
    },
  ],
  [
    'referenced by names each foreign key and the modules owning them',
    {
      code: 'referenced_by',
      module: 'patients',
      referencers: ['lab'],
      references: [
        {
          fromModule: 'lab',
          fromTable: 'lab_result',
          constraint: 'lab_result_patient_id_foreign',
          toModule: 'patients',
          toTable: 'patients_patient',
        },
      ],
    },
    {
      message:
        'patients is referenced by lab: foreign keys lab_result.lab_result_patient_id_foreign → patients_patient point into its tables',
      hint: 'uninstall lab first, or pass --cascade to uninstall them as well; --force does not override foreign keys',
    },
  ],
  [
    'a foreign key from a table no module owns says to drop it, since no flag helps',
    {
      code: 'referenced_by_unowned',
      module: 'patients',
      references: [
        {
          fromModule: null,
          fromTable: 'audit_log',
          constraint: 'audit_log_patient_fk',
          toModule: 'patients',
          toTable: 'patients_patient',
        },
      ],
    },
    {
      message:
        'patients cannot be uninstalled: tables no installed module owns hold foreign keys into the tables it would drop: audit_log.audit_log_patient_fk → patients_patient',
      hint: 'drop the foreign key (`ALTER TABLE audit_log DROP CONSTRAINT audit_log_patient_fk`) or the table holding it, then try again; neither --cascade nor --force removes a table no module owns',
    },
  ],
  [
    'manifest error quotes each problem with its file',
    {
      code: 'manifest_error',
      module: 'a',
      problems: [manifestProblem('a'), { ...manifestProblem('a', 'must be boolean'), path: '/removable' }],
    },
    {
      message:
        'the manifest of a is invalid: /modules/a/manifest.json: must have required property "version"; /modules/a/manifest.json at /removable: must be boolean',
      hint: 'fix the manifest, then run `ward modules doctor` to check it',
    },
  ],
  [
    'not on disk points to orphan',
    { code: 'not_on_disk', module: 'ghost' },
    {
      message: 'ghost is recorded in the database but its code is not found on disk',
      hint: 'reinstall its package, or run `ward modules orphan ghost` to mark it uninstalled without the uninstall steps',
    },
  ],
  [
    'out of range names each module, range and version, and what mends each',
    {
      code: 'out_of_range',
      kind: 'upgrade',
      module: 'documents',
      breaks: [
        {
          module: 'migration_import',
          moduleVersion: '1.1.0',
          dependency: 'documents',
          range: '^1.0.0',
          version: '2.0.0',
          fix: { kind: 'cascade', module: 'migration_import', diskVersion: '1.2.0' },
        },
        {
          module: 'reports',
          moduleVersion: '1.0.0',
          dependency: 'documents',
          range: '~1.4.0',
          version: '2.0.0',
          fix: { kind: 'new_code' },
        },
      ],
    },
    {
      message:
        'upgrading documents would leave modules outside a version range they require: migration_import 1.1.0 requires documents ^1.0.0, and documents would be 2.0.0; reports 1.0.0 requires documents ~1.4.0, and documents would be 2.0.0',
      hint: 'pass --cascade to upgrade migration_import to 1.2.0, its version on disk, which accepts documents 2.0.0; put a version of reports that accepts documents 2.0.0 on disk (then upgrade with --cascade), or of documents in ~1.4.0; or pass --force to upgrade anyway and leave them outside (`ward modules doctor` reports it until mended)',
    },
  ],
  [
    'an install out of range says which dependency to upgrade first',
    {
      code: 'out_of_range',
      kind: 'install',
      module: 'billing',
      breaks: [
        {
          module: 'billing',
          moduleVersion: '1.0.0',
          dependency: 'ledger',
          range: '>=2.0.0',
          version: '1.5.0',
          fix: { kind: 'upgrade_dependency', dependency: 'ledger', diskVersion: '2.1.0' },
        },
      ],
    },
    {
      message:
        'installing billing would leave modules outside a version range they require: billing 1.0.0 requires ledger >=2.0.0, and ledger would be 1.5.0',
      hint: 'upgrade ledger first (`ward modules upgrade ledger`: its version on disk, 2.1.0, is in >=2.0.0)',
    },
  ],
  [
    'blocked by names the blocker',
    { code: 'blocked_by', module: 'billing', blocker: 'ledger' },
    {
      message: 'billing waits for ledger, which is blocked',
      hint: 'fix ledger first (`ward modules doctor` shows why); billing follows at the next restart',
    },
  ],
];

for (const [title, refusal, expected] of cases) {
  test(`refusal text: ${title}`, (t) => {
    const error = refusalToError(refusal);
    t.true(error instanceof WardError);
    t.is(error.exitCode, 1);
    t.deepEqual(error.toJSON(), { code: refusal.code, ...expected });
  });
}

test('every refusal code has a text under test', (t) => {
  // A Record over the union makes tsc fail here when someone adds a refusal code.
  const codes: Record<Refusal['code'], true> = {
    unknown_module: true,
    not_installed: true,
    missing_dependency: true,
    dependency_cycle: true,
    already_at_version: true,
    not_removable: true,
    no_migration_branch: true,
    required_by: true,
    referenced_by: true,
    referenced_by_unowned: true,
    manifest_error: true,
    not_on_disk: true,
    out_of_range: true,
    blocked_by: true,
  };
  t.deepEqual(new Set(cases.map(([, refusal]) => refusal.code)), new Set(Object.keys(codes)));
});
