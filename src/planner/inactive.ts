/**
 * Inactive modules: installed ones left without a dependency (by `uninstall --force`, or by a
 * row changed by hand). They stay installed, but their code would fail at its first use of the
 * missing module, so a backend serves none of it: their routes answer 503 with the text below,
 * `/active` leaves them out, and their row's `error_message` carries the same text until the
 * dependency is installed again. Pure: the backend, the doctor and the planner ask the same
 * question of the same data, so they cannot disagree.
 */
import { byName } from './graph.ts';
import type { Inventory, ModuleRow, ModuleState } from './types.ts';

/** The states whose code runs in a backend: installed, maybe with an upgrade or uninstall waiting. */
export const RUNNING_STATES: ReadonlySet<ModuleState> = new Set(['installed', 'to_upgrade', 'to_uninstall']);

export interface InactiveModule {
  module: string;
  state: ModuleState;
  /** The direct dependency it lacks: not running, or running but inactive itself. */
  dependency: string;
  dependencyState: ModuleState;
  /** The module whose installation brings it back: `dependency`, or what `dependency` itself lacks. */
  missing: string;
}

/**
 * Modules whose row is in `running` but which depend, directly or through other modules, on one
 * whose row is not in `satisfying` (or is inactive itself), by name. The backend passes the
 * running states for both; the doctor asks about the next start, where a pending install
 * satisfies a dependency and a pending uninstall does not.
 */
export function findInactive(
  inventory: Inventory,
  rows: readonly ModuleRow[],
  running: ReadonlySet<ModuleState> = RUNNING_STATES,
  satisfying: ReadonlySet<ModuleState> = RUNNING_STATES,
): InactiveModule[] {
  const states = new Map(rows.map((row) => [row.name, row.state]));
  const stateOf = (name: string): ModuleState => states.get(name) ?? 'uninstalled';
  const depends = (name: string): string[] =>
    [...new Set(inventory.modules.get(name)?.depends ?? [])].filter((other) => other !== name).sort(byName);
  const inactive = new Map<string, InactiveModule>();
  const candidates = rows.filter((row) => running.has(row.state)).map((row) => row.name);
  // A fixed point: each pass marks the modules a missing or newly inactive dependency stops.
  for (let changed = true; changed;) {
    changed = false;
    for (const name of candidates) {
      if (inactive.has(name)) continue;
      for (const dependency of depends(name)) {
        const through = inactive.get(dependency);
        if (through === undefined && satisfying.has(stateOf(dependency))) continue;
        inactive.set(name, {
          module: name,
          state: stateOf(name),
          dependency,
          dependencyState: stateOf(dependency),
          missing: through?.missing ?? dependency,
        });
        changed = true;
        break;
      }
    }
  }
  return [...inactive.values()].sort((a, b) => byName(a.module, b.module));
}

/** What an inactive module's routes answer and its row records: what is missing, then the two ways out. */
export function inactiveText(inactive: InactiveModule): { message: string; hint: string } {
  const { module, dependency, missing } = inactive;
  const why =
    dependency === missing
      ? `it depends on ${dependency}, which is not installed`
      : `it depends on ${dependency}, which is inactive without ${missing}`;
  return {
    message: `${module} is inactive: ${why}`,
    hint: `install ${missing} (\`ward modules install ${missing}\`, then restart) to bring ${module} back, or uninstall ${module} (\`ward modules uninstall ${module}\`)`,
  };
}

/** The `error_message` of an inactive module: the 503's message and hint in one line. */
export function inactiveMessage(inactive: InactiveModule): string {
  const { message, hint } = inactiveText(inactive);
  return `${message}; ${hint}`;
}

/** Whether a row's `error_message` is one `inactiveMessage` wrote, rather than a failed step's. */
export const isInactiveMessage = (row: Pick<ModuleRow, 'name' | 'error_message'>): boolean =>
  row.error_message?.startsWith(`${row.name} is inactive: `) ?? false;

/**
 * The `error_message` each installed row should have after a start: the text of the inactive ones,
 * and null for those that are active again. Rows whose message is a failed step's are left alone.
 */
export function inactiveMessageChanges(
  inventory: Inventory,
  rows: readonly ModuleRow[],
): Array<{ module: string; errorMessage: string | null }> {
  const inactive = new Map(findInactive(inventory, rows).map((entry) => [entry.module, entry]));
  return rows.flatMap((row) => {
    if (row.state !== 'installed' || (row.error_message !== null && !isInactiveMessage(row))) return [];
    const entry = inactive.get(row.name);
    const wanted = entry === undefined ? null : inactiveMessage(entry);
    return wanted === row.error_message ? [] : [{ module: row.name, errorMessage: wanted }];
  });
}
