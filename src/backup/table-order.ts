/**
 * The order a data-only backup lists its tables in: every table after the tables its foreign keys
 * point to, so a restore with ordinary constraint checks never inserts a child before its parent.
 * Ties go by name in code-unit order (byName), so the result never depends on the machine's locale.
 */
import { byName } from '../planner/graph.ts';

export interface ForeignKeyEdge {
  /** The referencing table. */
  child: string;
  /** The referenced table. */
  parent: string;
}

export interface TableOrder {
  order: string[];
  /**
   * Some tables reference each other, or themselves, so no order satisfies every foreign key:
   * the restore must not check them while inserting (see backup.ts).
   */
  cyclic: boolean;
}

/**
 * Kahn's algorithm with ties broken by name, so the same tables always give the same file. When
 * only tables inside a cycle remain, the one with the fewest unplaced parents goes next: that
 * breaks the cycle while keeping as many parents first as possible.
 */
export function orderByForeignKeys(tables: readonly string[], edges: readonly ForeignKeyEdge[]): TableOrder {
  const remaining = new Set(tables);
  const parents = new Map<string, Set<string>>(tables.map((table) => [table, new Set<string>()]));
  let cyclic = false;
  for (const { child, parent } of edges) {
    if (!remaining.has(child) || !remaining.has(parent)) continue;
    // A self-reference needs unchecked inserts but says nothing about the order of tables.
    if (child === parent) cyclic = true;
    else parents.get(child)!.add(parent);
  }
  const unplaced = (table: string): number =>
    [...parents.get(table)!].filter((parent) => remaining.has(parent)).length;
  const order: string[] = [];
  while (remaining.size > 0) {
    const candidates = [...remaining].sort(byName);
    let next = candidates.find((table) => unplaced(table) === 0);
    if (next === undefined) {
      cyclic = true;
      next = candidates.reduce((best, table) => (unplaced(table) < unplaced(best) ? table : best));
    }
    order.push(next);
    remaining.delete(next);
  }
  return { order, cyclic };
}
