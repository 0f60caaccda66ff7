/**
 * Drift: how the modules on disk now differ from the ones the running backend started with. A
 * backend applies module changes only at start-up, so drift is what the next restart (or an
 * operator's `ward modules upgrade`) will have to deal with; the backend reports it, never acts.
 */
import { byName } from './graph.ts';
import type { Inventory } from './types.ts';

export type DriftChange = 'added' | 'removed' | 'version_changed' | 'manifest_error';

export interface DriftEntry {
  module: string;
  change: DriftChange;
  detail: string;
}

export function diffInventories(started: Inventory, now: Inventory): DriftEntry[] {
  const drift: DriftEntry[] = [];
  for (const [name, module] of now.modules) {
    const before = started.modules.get(name);
    if (before === undefined)
      drift.push({ module: name, change: 'added', detail: `${module.version} appeared on disk` });
    else if (before.version !== module.version)
      drift.push({
        module: name,
        change: 'version_changed',
        detail: `${before.version} -> ${module.version} on disk`,
      });
  }
  const broken = new Map(now.problems.filter((p) => p.module !== null).map((p) => [p.module as string, p]));
  for (const name of started.modules.keys()) {
    if (now.modules.has(name)) continue;
    const problem = broken.get(name);
    drift.push(
      problem === undefined
        ? { module: name, change: 'removed', detail: 'its code is gone from disk' }
        : {
            module: name,
            change: 'manifest_error',
            detail: `${problem.file}${problem.path}: ${problem.message}`,
          },
    );
  }
  return drift.sort((a, b) => byName(a.module, b.module));
}
