/**
 * The sidebar's order: a clinic opens its clinical pages all day and its administration rarely,
 * so navigation entries stand by their manifest `order` (clinical pages low, administration high,
 * an entry that gives none in between), then by module name and the manifest's own order.
 */
import { byName } from '../planner/graph.ts';
import type { NavigationEntry } from '../../generated/manifest.types.ts';

/** Where an entry without `order` stands: after the clinical pages, before administration. */
export const DEFAULT_NAVIGATION_ORDER = 500;

export type OrderedEntry = NavigationEntry & { module: string; order: number };

/** Every entry of `modules`, each with its module and its order, in sidebar order. Pure. */
export function orderedNavigation(
  modules: ReadonlyArray<{ name: string; navigation: readonly NavigationEntry[] }>,
): OrderedEntry[] {
  return modules
    .flatMap((module) =>
      module.navigation.map((entry, index) => ({
        entry: { ...entry, module: module.name, order: entry.order ?? DEFAULT_NAVIGATION_ORDER },
        index,
      })),
    )
    .sort(
      (a, b) => a.entry.order - b.entry.order || byName(a.entry.module, b.entry.module) || a.index - b.index,
    )
    .map(({ entry }) => entry);
}
