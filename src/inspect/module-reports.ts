/**
 * What `ward modules doctor` and `ward modules plan` print, assembled once for the commands and for
 * a running backend's admin endpoints (GET /api/v1/modules/-/doctor and -/plan), so the page and
 * the terminal can never say different things. A running backend reads as its next start will:
 * the modules on disk now, and the settings files read afresh at each request.
 */
import type { Knex } from 'knex';
import { summarisePlan, type PlanSummary } from '../planner/overview.ts';
import { configReport, entrySource } from '../config/report.ts';
import type { Config } from '../config.ts';
import { missingModuleTables, readModuleRows, readRecordedRequires } from '../db/modules.ts';
import { pendingPlan } from '../db/schedule.ts';
import type { WardError } from '../errors/ward-error.ts';
import { discover } from '../manifests/discover.ts';
import { diagnose, findingCount, type DoctorReport, type SearchSetting } from '../planner/doctor.ts';
import type { FileChecks } from '../planner/preflight.ts';
import type { Inventory, Plan } from '../planner/types.ts';
import { checkFiles } from './preflight.ts';

export type DoctorResult = { ok: boolean } & DoctorReport;

export interface PlanReport {
  plan: Plan;
  summary: PlanSummary;
}

/** What doctor reads besides the database. */
export interface DoctorInputs {
  inventory: Inventory | Promise<Inventory>;
  /** The settings and the grants file, checked as a start checks them. */
  files: FileChecks | Promise<FileChecks>;
  /** Where module code is looked for: an orphan's hint names these. */
  searched: readonly SearchSetting[];
}

/** The admin endpoints' reads of what is not in the database, fresh at each request. */
export interface ModuleSources {
  /** The modules on disk now: what the next start will find. */
  inventory(): Promise<Inventory>;
  doctor(): Promise<DoctorResult>;
}

/**
 * Doctor's inputs as a start with `config` reads them. `unreadable`: the settings files no longer
 * parse (see rereadConfig), a finding in place of the settings check.
 */
export function doctorInputs(
  config: Config,
  inventory: Promise<Inventory>,
  unreadable: WardError | null = null,
): DoctorInputs {
  const files = checkFiles(config);
  return {
    inventory,
    files: unreadable === null ? files : files.then((found) => ({ ...found, settings: unreadable })),
    searched: moduleSearch(config),
  };
}

/** `ward modules doctor --json`: every finding, and `ok` when there is none. */
export async function doctorReport(knex: Knex | Promise<Knex>, inputs: DoctorInputs): Promise<DoctorResult> {
  // The disk is read while the database connects, as the other read commands do.
  const [inventory, files, [rows, missing, recorded]] = await Promise.all([
    inputs.inventory,
    inputs.files,
    Promise.resolve(knex).then((db) =>
      Promise.all([readModuleRows(db), missingModuleTables(db), readRecordedRequires(db)]),
    ),
  ]);
  const report = diagnose(inventory, rows, missing, inputs.searched, files, recorded);
  return { ok: findingCount(report) === 0, ...report };
}

/** `ward modules plan --json`: what the next restart would apply, and its totals. */
export async function pendingPlanReport(knex: Knex, inventory: Inventory): Promise<PlanReport> {
  const plan = await pendingPlan(knex, inventory);
  return { plan, summary: summarisePlan(plan) };
}

/**
 * A backend's sources: `settings` gives the configuration its next start would read (rereadConfig
 * in a running backend), called at each request since the files may change while it serves.
 */
export function nextStartSources(
  knex: Knex,
  settings: () => { config: Config; unreadable: WardError | null },
): ModuleSources {
  return {
    inventory: () => discover(settings().config),
    doctor: () => {
      const { config, unreadable } = settings();
      return doctorReport(knex, doctorInputs(config, discover(config), unreadable));
    },
  };
}

/** Where a process looks for module code, as `ward config` shows it. */
function moduleSearch(config: Config): SearchSetting[] {
  return configReport(config, { showSecrets: false })
    .settings.filter((entry) => entry.name === 'WARD_MODULE_PATHS' || entry.name === 'WARD_PACKAGE_ROOT')
    .map((entry) => ({ name: entry.name, value: entry.value, source: entrySource(entry) }));
}
