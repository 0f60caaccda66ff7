/**
 * Version ranges (`requires`): which versions of its dependencies a module works with. Pure.
 *
 * After a plan, a module "is at" the version it will run at: the disk version when the plan (or a
 * pending row) installs or upgrades it, the recorded database version when it stays installed. Its
 * ranges are those of that version: the manifest on disk when it is installed or upgraded now, and
 * for one that stays, the ranges recorded when it was installed (`recorded`; the disk manifest for
 * a module installed before Ward recorded them).
 */
import satisfies from 'semver/functions/satisfies.js';
import { byName } from './graph.ts';
import type { Action, DiskModule, ModuleRow, RangeBreak, RangeFix } from './types.ts';

/** Ranges recorded in the database for installed modules (`core_module.requires`). */
export type RecordedRequires = ReadonlyMap<string, Readonly<Record<string, string>>>;

export interface RangeInputs {
  modules: ReadonlyMap<string, DiskModule>;
  rows: ReadonlyMap<string, ModuleRow>;
  recorded: RecordedRequires;
}

const ARRIVING = new Set(['to_install', 'to_upgrade']);

/** The version `name` runs at once `actions` are applied, or null when it will not be present. */
function versionAfter(
  inputs: RangeInputs,
  actions: ReadonlyMap<string, Action>,
  name: string,
): string | null {
  const action = actions.get(name);
  if (action !== undefined) return action.toVersion;
  const row = inputs.rows.get(name);
  if (row === undefined) return null;
  if (row.state === 'installed') return row.version ?? inputs.modules.get(name)?.version ?? null;
  return ARRIVING.has(row.state) ? (inputs.modules.get(name)?.version ?? null) : null;
}

/** The ranges `name` requires once `actions` are applied. */
function requiresAfter(
  inputs: RangeInputs,
  actions: ReadonlyMap<string, Action>,
  name: string,
): Readonly<Record<string, string>> {
  const disk = inputs.modules.get(name)?.requires ?? {};
  if (actions.has(name)) return disk;
  return inputs.rows.get(name)?.state === 'installed' ? (inputs.recorded.get(name) ?? disk) : disk;
}

/**
 * Every range broken once `actions` are applied (none: the state now), sorted by module then
 * dependency. A dependency that will not be present is `depends`' concern, not a range's.
 */
export function rangeBreaks(inputs: RangeInputs, actions: readonly Action[] = []): RangeBreak[] {
  const byModule = new Map(actions.map((action) => [action.module, action]));
  const present = new Set([...inputs.rows.keys(), ...byModule.keys()]);
  const breaks: RangeBreak[] = [];
  for (const module of [...present].sort(byName)) {
    const moduleVersion = versionAfter(inputs, byModule, module);
    if (moduleVersion === null) continue;
    const requires = requiresAfter(inputs, byModule, module);
    for (const dependency of Object.keys(requires).sort(byName)) {
      const range = requires[dependency]!;
      const version = versionAfter(inputs, byModule, dependency);
      if (version !== null && !satisfies(version, range))
        breaks.push({ module, moduleVersion, dependency, range, version });
    }
  }
  return breaks;
}

/** The breaks a plan causes: those whose module or dependency it installs or upgrades. */
export function breaksOfPlan(inputs: RangeInputs, actions: readonly Action[]): RangeBreak[] {
  const touched = new Set(actions.map((action) => action.module));
  return rangeBreaks(inputs, actions).filter(
    (broken) => touched.has(broken.module) || touched.has(broken.dependency),
  );
}

/**
 * A module `--cascade` may upgrade because a range it requires breaks: installed, left out of the
 * plan, with another version on disk. Null when there is none.
 */
export function cascadeUpgrade(
  inputs: RangeInputs,
  actions: readonly Action[],
  broken: RangeBreak,
): string | null {
  const { module } = broken;
  if (actions.some((action) => action.module === module)) return null;
  const row = inputs.rows.get(module);
  const disk = inputs.modules.get(module);
  if (row?.state !== 'installed' || disk === undefined || disk.version === row.version) return null;
  return module;
}

/** What could mend `broken`, for the refusal's hint. */
export function rangeFix(inputs: RangeInputs, actions: readonly Action[], broken: RangeBreak): RangeFix {
  const cascade = cascadeUpgrade(inputs, actions, broken);
  const disk = inputs.modules.get(broken.module);
  if (
    cascade !== null &&
    disk !== undefined &&
    satisfies(broken.version, disk.requires[broken.dependency] ?? '*')
  )
    return { kind: 'cascade', module: cascade, diskVersion: disk.version };
  const dependency = inputs.modules.get(broken.dependency);
  const dependencyMoves = actions.some((action) => action.module === broken.dependency);
  if (!dependencyMoves && dependency !== undefined && satisfies(dependency.version, broken.range))
    return { kind: 'upgrade_dependency', dependency: broken.dependency, diskVersion: dependency.version };
  return { kind: 'new_code' };
}
