import type { DoctorReport } from '../../../planner/doctor.ts';
import { doctorInputs, doctorReport, type DoctorResult } from '../../../inspect/module-reports.ts';
import { ModuleCommand } from '../../module-command.ts';

export default class ModulesDoctor extends ModuleCommand {
  static override description =
    "Report orphans, missing dependencies (code not found, or not installed: the dependent is inactive), broken version ranges, manifest errors, errored modules, installed modules' missing tables and bad settings or grants file; exits 1 when it finds any";
  static override examples = ['<%= config.bin %> modules doctor', '<%= config.bin %> modules doctor --json'];
  static override enableJsonFlag = true;

  async run(): Promise<DoctorResult> {
    const result = await doctorReport(this.db(), doctorInputs(this.settings, this.inventory()));
    this.log(renderReport(result));
    // Non-zero exit is the contract, in --json mode too; process.exitCode keeps the output.
    if (!result.ok) process.exitCode = 1;
    return result;
  }
}

function renderReport(report: DoctorReport): string {
  const sections: Array<[string, string[]]> = [
    [
      'Orphans (in the database, missing from disk)',
      report.orphans.map((o) => `${o.module} (${o.state})\n    hint: ${o.hint}`),
    ],
    [
      'Missing dependencies',
      [
        ...report.missingDependencies.map((m) => `${m.module} depends on ${m.dependency}, not found`),
        ...report.unsatisfiedDependencies.map(
          (u) =>
            `${u.module} (${u.state}) depends on ${u.dependency}, which is ${u.dependencyState}: ${u.hint}`,
        ),
      ],
    ],
    [
      'Broken version ranges (a module outside a range another requires of it)',
      report.brokenRanges.map((b) => `${b.message}\n    hint: ${b.hint}`),
    ],
    ['Manifest errors', report.manifestErrors.map((e) => `${e.file} ${e.path}: ${e.message}`)],
    ['Errored modules', report.errored.map((e) => `${e.module} (${e.state}): ${e.errorMessage}`)],
    [
      'Missing tables (installed modules, tables gone from the database; restore it from a backup)',
      report.missingTables.map((m) => `${m.module}: ${m.table}`),
    ],
    [
      'Settings and grants file (a backend refuses to start)',
      report.configuration.map((c) => `${c.message}\n    hint: ${c.hint}`),
    ],
  ];
  const found = sections.filter(([, items]) => items.length > 0);
  if (found.length === 0) return 'No issues found.';
  return found
    .map(([title, items]) => [`${title}:`, ...items.map((item) => `  ${item}`)].join('\n'))
    .join('\n\n');
}
