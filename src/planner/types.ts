/**
 * The controller's contract: what disk and the database say about modules, what an operator
 * asks for, and the plan that reconciles them. Everything here is plain data so that the planner
 * and the doctor stay pure functions that need neither knex nor fs.
 */
import type { Manifest } from '../../generated/manifest.types.ts';

export type { Manifest };

/** Desired-or-actual state of a module row. `to_*` states are pending: the next start applies them. */
export type ModuleState = 'uninstalled' | 'installed' | 'to_install' | 'to_upgrade' | 'to_uninstall';

export const PENDING_STATES: readonly ModuleState[] = ['to_install', 'to_upgrade', 'to_uninstall'];

/** Bundled in `modules/` (official) or brought by an npm package or WARD_MODULE_PATHS (community). */
export type Category = 'official' | 'community';

/** A module whose code is on disk, as discovery found it. */
export interface DiskModule {
  name: string;
  version: string;
  category: Category;
  /** Absolute path of the module's directory. */
  dir: string;
  manifest: Manifest;
  depends: string[];
  /** Dependency → the npm version range of it this version works with (the manifest's `requires`). */
  requires: Readonly<Record<string, string>>;
  removable: boolean;
  /** `migrations/` exists: the module owns a migration branch named after it. Legacy modules do not. */
  hasMigrationBranch: boolean;
  /** Absolute paths of optional files, or null when the module ships none. */
  hooks: string | null;
  routes: string | null;
  /** The operator's commands (`commands.ts`/`.js`), run by `ward modules run`. */
  commands: string | null;
  /** Long-running work started with the backend and stopped before it exits (`services.ts`/`.js`). */
  services: string | null;
  /**
   * The frontend layer's entry file, relative to the module directory and `/`-separated: the
   * manifest's `frontend`, or `<folder>/index.js` when it names a folder.
   */
  frontend: string | null;
  /** Absolute path of the public API file the manifest's `api` names, or null when there is none. */
  api: string | null;
}

/** A "manifest error": a file that could not become a DiskModule. */
export interface ManifestProblem {
  /** The manifest (or package.json) that is wrong. */
  file: string;
  /** JSON path inside the file, `/` for the whole document. */
  path: string;
  message: string;
  /** The module name when it could be read, so doctor and the planner can attribute it. */
  module: string | null;
}

/** Everything on disk. Modules with problems are left out of `modules` and listed in `problems`. */
export interface Inventory {
  modules: ReadonlyMap<string, DiskModule>;
  problems: readonly ManifestProblem[];
}

/**
 * A foreign key from one table into a table a module owns (`core_module_table`), read from
 * `pg_constraint`. `fromModule` is the module owning the referencing table, or null when no module
 * does (a table made by hand, or outside the search path): then no uninstall can remove it.
 * References within one module are left out: its own downgrade drops both ends.
 */
export interface TableReference {
  fromModule: string | null;
  fromTable: string;
  constraint: string;
  toModule: string;
  toTable: string;
}

/** One row of `core_module`. */
export interface ModuleRow {
  name: string;
  state: ModuleState;
  /** Version recorded in the database: the installed one; null before the first install. */
  version: string | null;
  installed_at: Date | null;
  error_message: string | null;
  last_state_change: Date;
}

/** What the operator asked for. `reconcile` is the restart-time plan computed from pending rows. */
export type Request =
  | { kind: 'install'; name: string }
  /** `cascade`: also upgrade installed modules whose ranges the new version leaves; `force`: leave them. */
  | { kind: 'upgrade'; name: string; force: boolean; cascade: boolean }
  | { kind: 'uninstall'; name: string; force: boolean; cascade: boolean }
  | { kind: 'reconcile' };

export type ActionKind = 'install' | 'upgrade' | 'uninstall';

/** Why a module is in a plan. */
export type Reason =
  | { kind: 'requested' }
  | { kind: 'dependency'; of: string }
  | { kind: 'new_dependency'; of: string }
  | { kind: 'dependent'; of: string }
  /** `--cascade`: its tables hold foreign keys into the tables of `of`. */
  | { kind: 'referencer'; of: string }
  /** Restart-time plan: the row was already in a `to_*` state. */
  | { kind: 'pending' };

export interface Action {
  kind: ActionKind;
  module: string;
  /** Version in the database before the action (null when never installed). */
  fromVersion: string | null;
  /** Version after the action: the disk version, or null for uninstall. */
  toVersion: string | null;
  reason: Reason;
}

/** A module the request names that needs no change, and why (install of an installed module). */
export interface Unchanged {
  module: string;
  state: ModuleState;
}

/**
 * Ordered actions: uninstalls first, dependents before their dependencies; then installs and
 * upgrades, dependencies before their dependents. Applying them in order never leaves an
 * installed module without an installed dependency.
 */
export interface Plan {
  actions: Action[];
  unchanged: Unchanged[];
  /** Restart-time only: pending modules that cannot be applied, each with why. Others proceed. */
  blocked: Array<{ module: string; refusal: Refusal }>;
  /**
   * Installed modules that the plan's uninstalls leave without a dependency (`--force`): they stay
   * installed but inactive until `dependency` is installed again.
   */
  inactive: Array<{ module: string; dependency: string }>;
  /** `upgrade --force` only: the ranges the plan leaves broken, which `ward modules doctor` then reports. */
  rangeBreaks?: RangeBreak[];
}

/**
 * After a plan (or now, for doctor), `module` at `moduleVersion` requires `dependency` in `range`,
 * and `dependency` is at `version`, outside it.
 */
export interface RangeBreak {
  module: string;
  moduleVersion: string | null;
  dependency: string;
  range: string;
  version: string;
}

/**
 * How a broken range could be mended, as the refusal's hint says: upgrading the requiring module to
 * its version on disk (`--cascade`), upgrading the dependency first, or nothing Ward has on disk.
 */
export type RangeFix =
  | { kind: 'cascade'; module: string; diskVersion: string }
  | { kind: 'upgrade_dependency'; dependency: string; diskVersion: string }
  | { kind: 'new_code' };

/** Why the planner will not produce a plan for a request. Rendered to text by `refusals.ts`. */
export type Refusal =
  | { code: 'unknown_module'; module: string }
  | { code: 'not_installed'; module: string; state: ModuleState }
  | { code: 'missing_dependency'; module: string; dependency: string }
  | { code: 'dependency_cycle'; path: string[] }
  | { code: 'already_at_version'; module: string; version: string }
  | { code: 'not_removable'; module: string }
  | { code: 'no_migration_branch'; module: string }
  /**
   * Present modules depend on it; `dependents` also names present modules whose tables hold
   * foreign keys into its tables, and `references` lists those keys.
   */
  | { code: 'required_by'; module: string; dependents: string[]; references: TableReference[] }
  /** No present module depends on it, but the tables of `referencers` hold foreign keys into its tables. */
  | { code: 'referenced_by'; module: string; referencers: string[]; references: TableReference[] }
  /** Tables no present module owns hold foreign keys into the tables being removed: no uninstall removes them. */
  | { code: 'referenced_by_unowned'; module: string; references: TableReference[] }
  | { code: 'manifest_error'; module: string; problems: ManifestProblem[] }
  /** The database has a row for the module but its code is gone: only `ward modules orphan` applies. */
  | { code: 'not_on_disk'; module: string }
  /**
   * The install or upgrade of `module` would leave installed modules outside version ranges they
   * require; each break with what could mend it.
   */
  | {
      code: 'out_of_range';
      kind: 'install' | 'upgrade';
      module: string;
      breaks: Array<RangeBreak & { fix: RangeFix }>;
    }
  /** Restart-time only: `module` must wait for `blocker`, which is itself blocked. */
  | { code: 'blocked_by'; module: string; blocker: string };

export type PlanResult = { ok: true; plan: Plan } | { ok: false; refusal: Refusal };

/**
 * The steps of each action, in the order they run. Every step is idempotent, and the
 * operation log records `started` then `done` or `failed` for each, so a restart after a crash
 * resumes a module at its first step that is not `done`.
 */
export type StepName =
  | 'check'
  | 'migrate'
  | 'seed'
  | 'post_install'
  | 'post_upgrade'
  | 'backup'
  | 'uninstall_hook'
  | 'purge'
  | 'downgrade'
  | 'finalize';

export const STEPS: Readonly<Record<ActionKind, readonly StepName[]>> = {
  install: ['migrate', 'seed', 'post_install', 'finalize'],
  upgrade: ['migrate', 'seed', 'post_upgrade', 'finalize'],
  // `check` proves the downgrade can finish (a rolled-back dry run) before anything is destroyed.
  uninstall: ['check', 'backup', 'uninstall_hook', 'purge', 'downgrade', 'finalize'],
};

/** One row of `core_module_operation_log`, as the applier reads it back to find where to resume. */
export interface LogRow {
  id: number;
  module_name: string;
  operation: string;
  step: string;
  status: 'started' | 'done' | 'failed' | 'skipped';
}

/** A table an installed module's migrations created that the database no longer has. */
export interface MissingTable {
  module_name: string;
  table_name: string;
}
