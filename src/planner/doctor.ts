/**
 * `ward modules doctor`: the four kinds of finding SPEC §4.2 names, computed from plain data, and
 * a fifth: tables of installed modules gone from the database, which stop start-up (bootstrap.ts)
 * and so must show where the runbook sends an operator whose backend will not start. Any finding
 * makes the command exit non-zero, so it can gate a deploy.
 */
import { findOrphans } from './bootstrap.ts';
import { cyclicComponents, findCycle } from './graph.ts';
import type { Inventory, MissingTable, ModuleRow } from './types.ts';

export interface DoctorReport {
  orphans: Array<{ module: string; state: string }>;
  missingDependencies: Array<{ module: string; dependency: string }>;
  manifestErrors: Array<{ module: string | null; file: string; path: string; message: string }>;
  errored: Array<{ module: string; state: string; errorMessage: string }>;
  missingTables: Array<{ module: string; table: string }>;
}

export function diagnose(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  missingTables: readonly MissingTable[] = [],
): DoctorReport {
  const states = new Map(rows.map((row) => [row.name, row.state]));
  const problemModules = new Set(inventory.problems.map((problem) => problem.module));
  const missingDependencies = [...inventory.modules.values()].flatMap((module) =>
    module.depends
      // A dependency whose manifest is broken is reported once, as a manifest error.
      .filter((dependency) => !inventory.modules.has(dependency) && !problemModules.has(dependency))
      .map((dependency) => ({ module: module.name, dependency })),
  );
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
    orphans: findOrphans(inventory, rows).map((module) => ({ module, state: states.get(module) as string })),
    missingDependencies,
    manifestErrors: [
      ...inventory.problems.map(({ module, file, path, message }) => ({ module, file, path, message })),
      ...cycles,
    ],
    errored: rows
      .filter((row) => row.error_message !== null)
      .map((row) => ({ module: row.name, state: row.state, errorMessage: row.error_message as string })),
    missingTables: missingTables.map(({ module_name, table_name }) => ({
      module: module_name,
      table: table_name,
    })),
  };
}

export function findingCount(report: DoctorReport): number {
  return (
    report.orphans.length +
    report.missingDependencies.length +
    report.manifestErrors.length +
    report.errored.length +
    report.missingTables.length
  );
}
