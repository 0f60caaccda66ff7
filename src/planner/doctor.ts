/**
 * `ward modules doctor`: the four kinds of finding the operator runbook relies on, computed from plain data, and
 * two more: tables of installed modules gone from the database, which stop start-up (bootstrap.ts)
 * and so must show where the runbook sends an operator whose backend will not start; and installed
 * modules whose dependency is on disk but not installed (left by `uninstall --force`, or about to
 * be), which a backend keeps inactive (inactive.ts). The CLI and the web page list both kinds of
 * dependency under "Missing dependencies". The settings and the grants
 * file are checked as a start checks them (preflight.ts), so doctor shows every reason a start or a
 * restart would be refused. Any finding makes the command exit non-zero, so it can gate a deploy.
 */
import { findOrphans } from './bootstrap.ts';
import { byName, cyclicComponents, findCycle } from './graph.ts';
import { findInactive, isInactiveMessage } from './inactive.ts';
import { fileFindings, type FileChecks, type Finding } from './preflight.ts';
import { rangeBreaks, rangeFix, type RecordedRequires } from './ranges.ts';
import { describeBreak, rangeHint } from './range-refusals.ts';
import type { Inventory, MissingTable, ModuleRow, ModuleState, RangeBreak } from './types.ts';

/**
 * Installed modules that stay: their routes are live and need their dependencies. A `to_uninstall`
 * module is leaving, usually with its dependencies (`--cascade`), so it is not reported.
 */
const RUNNING: ReadonlySet<ModuleState> = new Set(['installed', 'to_upgrade']);
/** Installed now or about to be: what satisfies a dependency (the planner's "present"). */
const PRESENT: ReadonlySet<ModuleState> = new Set(['installed', 'to_install', 'to_upgrade']);

/** A setting that decides where module code is looked for, as `ward config` shows it. */
export interface SearchSetting {
  name: string;
  /** null: unset, with no default. */
  value: string | null;
  /** `environment`, `<file>:<line>` or `default`. */
  source: string;
}

export interface DoctorReport {
  /** `hint`: a module may look orphaned only because this process searched elsewhere than its backend. */
  orphans: Array<{ module: string; state: string; hint: string }>;
  missingDependencies: Array<{ module: string; dependency: string }>;
  /** Installed modules whose dependency is on disk but not installed, each with its fix. */
  unsatisfiedDependencies: Array<{
    module: string;
    state: ModuleState;
    dependency: string;
    dependencyState: ModuleState;
    hint: string;
  }>;
  /** Present modules outside a version range another present module requires, each with its fix. */
  brokenRanges: Array<RangeBreak & { message: string; hint: string }>;
  manifestErrors: Array<{ module: string | null; file: string; path: string; message: string }>;
  errored: Array<{ module: string; state: string; errorMessage: string }>;
  missingTables: Array<{ module: string; table: string }>;
  /** The settings and the grants file, as a start reads them: a start refuses while any is wrong. */
  configuration: Finding[];
}

export function diagnose(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  missingTables: readonly MissingTable[] = [],
  searched: readonly SearchSetting[] = [],
  files: FileChecks = { settings: null, database: null, storage: null, grants: null },
  recorded: RecordedRequires = new Map(),
): DoctorReport {
  const states = new Map(rows.map((row) => [row.name, row.state]));
  const problemModules = new Set(inventory.problems.map((problem) => problem.module));
  const missingDependencies = [...inventory.modules.values()].flatMap((module) =>
    module.depends
      // A dependency whose manifest is broken is reported once, as a manifest error.
      .filter((dependency) => !inventory.modules.has(dependency) && !problemModules.has(dependency))
      .map((dependency) => ({ module: module.name, dependency })),
  );
  const inactive = new Map(
    findInactive(inventory, rows, RUNNING, PRESENT).map((entry) => [entry.module, entry]),
  );
  const stateOf = (name: string): ModuleState => states.get(name) ?? 'uninstalled';
  const unsatisfiedDependencies = [...inactive.values()].flatMap(({ module, state }) =>
    [...new Set(inventory.modules.get(module)?.depends ?? [])]
      .sort(byName)
      // A dependency whose code is gone is reported once, above, as not found.
      .filter((dependency) => dependency !== module && inventory.modules.has(dependency))
      .filter((dependency) => !PRESENT.has(stateOf(dependency)) || inactive.has(dependency))
      .map((dependency) => {
        const missing = inactive.get(dependency)?.missing ?? dependency;
        return {
          module,
          state,
          dependency,
          dependencyState: stateOf(dependency),
          hint: inactiveHint(module, dependency, missing, stateOf(missing)),
        };
      }),
  );
  const unsatisfied = new Set(unsatisfiedDependencies.map((entry) => entry.module));
  const dependsOn = (name: string) => inventory.modules.get(name)?.depends ?? [];
  const cycles = cyclicComponents(new Set(inventory.modules.keys()), dependsOn).map((component) => {
    const path = findCycle(new Set(component), dependsOn) ?? component;
    const first = path[0] ?? '';
    return {
      module: first,
      file: `${inventory.modules.get(first)?.dir ?? first}/manifest.json`,
      path: '/depends',
      message: `dependency cycle: ${path.join(' -> ')}`,
    };
  });
  return {
    orphans: findOrphans(inventory, rows).map((module) => ({
      module,
      state: states.get(module) as string,
      hint: orphanHint(module, searched),
    })),
    missingDependencies,
    unsatisfiedDependencies,
    brokenRanges: brokenRanges(inventory, rows, recorded),
    manifestErrors: [
      ...inventory.problems.map(({ module, file, path, message }) => ({ module, file, path, message })),
      ...cycles,
    ],
    errored: rows
      // An inactive module's text says what its missing-dependency finding says.
      .filter((row) => row.error_message !== null && !(unsatisfied.has(row.name) && isInactiveMessage(row)))
      .map((row) => ({ module: row.name, state: row.state, errorMessage: row.error_message as string })),
    missingTables: missingTables.map(({ module_name, table_name }) => ({
      module: module_name,
      table: table_name,
    })),
    configuration: fileFindings(files),
  };
}

/** Whether the module is inactive now or from the next restart, and the two ways out. */
function inactiveHint(
  module: string,
  dependency: string,
  missing: string,
  missingState: ModuleState,
): string {
  const through = dependency === missing ? '' : `${dependency} is inactive without ${missing}; `;
  if (missingState === 'to_uninstall')
    return `${through}${module} is inactive from the next restart: run \`ward modules install ${missing}\` (this cancels its pending uninstall), or uninstall ${module}`;
  return `${through}${module} is inactive until ${missing} is installed: run \`ward modules install ${missing}\` and restart, or uninstall ${module}`;
}

/**
 * Orphaning skips a module's uninstall steps for good, so the hint first sends the operator to the
 * settings this process searched with: a backend given other settings (another shell's
 * environment) may be running the module's code right now.
 */
export function orphanHint(module: string, searched: readonly SearchSetting[]): string {
  const settings = searched.map(
    ({ name, value, source }) =>
      `${name}=${value ?? '(unset)'} (${source === 'default' ? 'default' : `from ${source}`})`,
  );
  const where = settings.length === 0 ? '' : ` with ${settings.join(' and ')}`;
  return (
    `its code was not found${where}; if the backend runs it, this command was given other settings: ` +
    'check `ward config` and put them in <storage>/ward.env, which every ward process reads. ' +
    `Only if the code is truly gone, run \`ward modules orphan ${module}\``
  );
}

function brokenRanges(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  recorded: RecordedRequires,
): DoctorReport['brokenRanges'] {
  const inputs = { modules: inventory.modules, rows: new Map(rows.map((row) => [row.name, row])), recorded };
  return rangeBreaks(inputs).map((broken) => ({
    ...broken,
    message: describeBreak(broken, 'is'),
    hint: rangeHint(broken, rangeFix(inputs, [], broken)),
  }));
}

export function findingCount(report: DoctorReport): number {
  return (
    report.brokenRanges.length +
    report.orphans.length +
    report.missingDependencies.length +
    report.unsatisfiedDependencies.length +
    report.manifestErrors.length +
    report.errored.length +
    report.missingTables.length +
    report.configuration.length
  );
}
