import { diagnose, findingCount, type DoctorReport } from '../../../planner/doctor.ts';
import { missingModuleTables, readModuleRows } from '../../../db/modules.ts';
import { ModuleCommand } from '../../module-command.ts';

export default class ModulesDoctor extends ModuleCommand {
  static override description =
    "Report orphans, missing dependencies, manifest errors, errored modules and installed modules' missing tables; exits 1 when it finds any";
  static override examples = ['<%= config.bin %> modules doctor', '<%= config.bin %> modules doctor --json'];
  static override enableJsonFlag = true;

  async run(): Promise<DoctorReport & { ok: boolean }> {
    // The disk is read while the database connects, as the other read commands do.
    const [inventory, [rows, missing]] = await Promise.all([
      this.inventory(),
      this.db().then((knex) => Promise.all([readModuleRows(knex), missingModuleTables(knex)])),
    ]);
    const report = diagnose(inventory, rows, missing);
    const ok = findingCount(report) === 0;
    this.log(renderReport(report));
    // Non-zero exit is the contract (SPEC §4.2), in --json mode too; process.exitCode keeps the output.
    if (!ok) process.exitCode = 1;
    return { ok, ...report };
  }
}

function renderReport(report: DoctorReport): string {
  const sections: Array<[string, string[]]> = [
    ['Orphans (in the database, missing from disk)', report.orphans.map((o) => `${o.module} (${o.state})`)],
    [
      'Missing dependencies',
      report.missingDependencies.map((m) => `${m.module} depends on ${m.dependency}, not found`),
    ],
    ['Manifest errors', report.manifestErrors.map((e) => `${e.file} ${e.path}: ${e.message}`)],
    ['Errored modules', report.errored.map((e) => `${e.module} (${e.state}): ${e.errorMessage}`)],
    [
      'Missing tables (installed modules, tables gone from the database; restore it from a backup)',
      report.missingTables.map((m) => `${m.module}: ${m.table}`),
    ],
  ];
  const found = sections.filter(([, items]) => items.length > 0);
  if (found.length === 0) return 'No issues found.';
  return found
    .map(([title, items]) => [`${title}:`, ...items.map((item) => `  ${item}`)].join('\n'))
    .join('\n\n');
}
