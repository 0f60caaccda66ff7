/**
 * The one place a planner refusal becomes operator-facing text. Messages name the module and what
 * was found; hints say what to do. Scripts branch on `code`, which is the refusal's own code.
 */
import { WardError } from '../errors/ward-error.ts';
import { renderRangeRefusal } from './range-refusals.ts';
import type { ManifestProblem, ModuleState, Refusal, TableReference } from './types.ts';

const list = (names: readonly string[]): string => names.join(', ');

/** `from_table.constraint → to_table`: a constraint belongs to the table it is declared on. */
const foreignKeys = (references: readonly TableReference[]): string =>
  references
    .map((reference) => `${reference.fromTable}.${reference.constraint} → ${reference.toTable}`)
    .join(', ');

/** `fromTable` is already as PostgreSQL prints a table name; a constraint name needs quotes unless plain. */
const dropStatement = (reference: TableReference): string => {
  const plain = /^[a-z_][a-z0-9_$]*$/.test(reference.constraint);
  const constraint = plain ? reference.constraint : `"${reference.constraint.replaceAll('"', '""')}"`;
  return `ALTER TABLE ${reference.fromTable} DROP CONSTRAINT ${constraint}`;
};

/** With foreign keys in the way `--force` cannot help; with dependents only it leaves them inactive. */
function cascadeHint(module: string, others: readonly string[], foreignKeys: boolean): string {
  const first = `uninstall ${list(others)} first`;
  const cascade = 'pass --cascade to uninstall them as well';
  if (foreignKeys) return `${first}, or ${cascade}; --force does not override foreign keys`;
  return `${first}, ${cascade}, or pass --force to uninstall only ${module} and leave ${others.length === 1 ? 'it' : 'them'} installed but inactive until ${module} is installed again`;
}

const describeProblem = (problem: ManifestProblem): string =>
  `${problem.file}${problem.path === '/' ? '' : ` at ${problem.path}`}: ${problem.message}`;

/** Installing is the fix unless the install is already pending; then only a restart helps. */
function notInstalledHint(module: string, state: ModuleState): string {
  if (state === 'to_install')
    return `${module} is scheduled for installation; run \`ward modules restart\` to apply it first`;
  return `run \`ward modules install ${module}\` first`;
}

function render(refusal: Refusal): { message: string; hint: string } {
  switch (refusal.code) {
    case 'unknown_module':
      return {
        message: `${refusal.module} is not a known module: its code is not on disk and the database has no row for it`,
        hint: 'run `ward modules list` to see the modules Ward knows; a community module needs its package installed first',
      };
    case 'not_installed':
      return {
        message: `${refusal.module} is not installed (state ${refusal.state})`,
        hint: notInstalledHint(refusal.module, refusal.state),
      };
    case 'missing_dependency':
      return {
        message: `${refusal.module} depends on ${refusal.dependency}, which is not found on disk`,
        hint: `install the package that provides ${refusal.dependency}, or remove it from "depends" in the manifest of ${refusal.module}`,
      };
    case 'dependency_cycle':
      return {
        message: `modules depend on each other in a cycle: ${refusal.path.join(' -> ')}`,
        hint: 'remove one of these dependencies from its module\'s "depends"; modules in a cycle cannot be installed in any order',
      };
    case 'already_at_version':
      return {
        message: `${refusal.module} is already at the declared version ${refusal.version}`,
        hint: `put the new version of ${refusal.module} on disk (update its package) first, then run \`ward modules upgrade ${refusal.module}\``,
      };
    case 'not_removable':
      return {
        message: `${refusal.module} is not removable (its manifest says "removable": false)`,
        hint: `pass --force to uninstall ${refusal.module} anyway`,
      };
    case 'no_migration_branch':
      return {
        message: `${refusal.module} has no migration branch "${refusal.module}" (no migrations/ directory); legacy modules cannot be uninstalled, even with --force`,
        hint: `keep ${refusal.module} installed, or give it a migrations/ directory so its tables can be downgraded`,
      };
    case 'required_by':
      return {
        message:
          refusal.references.length === 0
            ? `${refusal.module} is required by ${list(refusal.dependents)}`
            : `${refusal.module} is required by ${list(refusal.dependents)} (foreign keys into its tables: ${foreignKeys(refusal.references)})`,
        hint: cascadeHint(refusal.module, refusal.dependents, refusal.references.length > 0),
      };
    case 'referenced_by':
      return {
        message: `${refusal.module} is referenced by ${list(refusal.referencers)}: foreign keys ${foreignKeys(refusal.references)} point into its tables`,
        hint: cascadeHint(refusal.module, refusal.referencers, true),
      };
    case 'referenced_by_unowned':
      return {
        message: `${refusal.module} cannot be uninstalled: tables no installed module owns hold foreign keys into the tables it would drop: ${foreignKeys(refusal.references)}`,
        hint: `drop the foreign ${refusal.references.length === 1 ? 'key' : 'keys'} (${refusal.references.map((reference) => `\`${dropStatement(reference)}\``).join(', ')}) or the ${refusal.references.length === 1 ? 'table holding it' : 'tables holding them'}, then try again; neither --cascade nor --force removes a table no module owns`,
      };
    case 'manifest_error':
      return {
        message: `the manifest of ${refusal.module} is invalid: ${refusal.problems.map(describeProblem).join('; ')}`,
        hint: 'fix the manifest, then run `ward modules doctor` to check it',
      };
    case 'not_on_disk':
      return {
        message: `${refusal.module} is recorded in the database but its code is not found on disk`,
        hint: `reinstall its package, or run \`ward modules orphan ${refusal.module}\` to mark it uninstalled without the uninstall steps`,
      };
    case 'out_of_range':
      return renderRangeRefusal(refusal);
    case 'blocked_by':
      return {
        message: `${refusal.module} waits for ${refusal.blocker}, which is blocked`,
        hint: `fix ${refusal.blocker} first (\`ward modules doctor\` shows why); ${refusal.module} follows at the next restart`,
      };
  }
}

export function refusalToError(refusal: Refusal): WardError {
  const { message, hint } = render(refusal);
  return new WardError(refusal.code, message, hint, { exitCode: 1 });
}
