/**
 * In-memory fixtures for planner tests: a disk inventory and `core_module` rows built from short
 * specs. Nothing here touches the disk or the database.
 */
import type {
  Category,
  DiskModule,
  Inventory,
  ManifestProblem,
  ModuleRow,
  ModuleState,
} from '../../src/planner/types.ts';

export interface ModuleSpec {
  version?: string;
  depends?: string[];
  removable?: boolean;
  /** Whether the module ships `migrations/`; false makes it a legacy module. */
  migrations?: boolean;
  category?: Category;
  /** The manifest's `requires`: dependency → version range. */
  requires?: Record<string, string>;
}

export function diskModule(name: string, spec: ModuleSpec = {}): DiskModule {
  const version = spec.version ?? '1.0.0';
  const depends = spec.depends ?? [];
  const removable = spec.removable ?? true;
  return {
    name,
    version,
    category: spec.category ?? 'community',
    dir: `/modules/${name}`,
    manifest: { name, version, depends, removable, ...(spec.requires ? { requires: spec.requires } : {}) },
    depends,
    requires: spec.requires ?? {},
    removable,
    hasMigrationBranch: spec.migrations ?? true,
    hooks: null,
    routes: null,
    commands: null,
    services: null,
    frontend: null,
    api: null,
  };
}

export function inventoryOf(specs: Record<string, ModuleSpec>, problems: ManifestProblem[] = []): Inventory {
  return {
    modules: new Map(Object.entries(specs).map(([name, spec]) => [name, diskModule(name, spec)])),
    problems,
  };
}

export function manifestProblem(
  module: string,
  message = 'must have required property "version"',
): ManifestProblem {
  return { file: `/modules/${module}/manifest.json`, path: '/', message, module };
}

const EPOCH = new Date(0);

export function row(name: string, state: ModuleState, version: string | null = '1.0.0'): ModuleRow {
  return {
    name,
    state,
    version,
    installed_at: state === 'installed' ? EPOCH : null,
    error_message: null,
    last_state_change: EPOCH,
  };
}

/** `{ a: 'installed', b: ['to_upgrade', '0.9.0'] }`: a state, or a state and the database version. */
export function rowsOf(states: Record<string, ModuleState | [ModuleState, string | null]>): ModuleRow[] {
  return Object.entries(states).map(([name, entry]) =>
    typeof entry === 'string' ? row(name, entry) : row(name, entry[0], entry[1]),
  );
}
