/**
 * Dependency-graph helpers for the planner. Pure and deterministic: wherever there is a choice
 * (which ready node goes next, which edge to follow first) the smallest name wins, so the same
 * input always gives the same plan and the same error text, whatever order disk or the database
 * listed things in.
 */

/**
 * The neighbours of a node. For ordering, the nodes that must come before it; edges that leave
 * the set being ordered are ignored, so callers can pass a module's full `depends`.
 */
export type Edges = (node: string) => readonly string[];

export type OrderResult = { ok: true; order: string[] } | { ok: false; cycle: string[] };

/** Code-point order: locale-independent, so plans do not change with the operator's locale. */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Kahn's algorithm needs "smallest ready name" many times; a heap keeps that O(log n). */
class NameHeap {
  readonly #items: string[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(name: string): void {
    const items = this.#items;
    items.push(name);
    let at = items.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (byName(items[parent]!, items[at]!) <= 0) break;
      [items[parent], items[at]] = [items[at]!, items[parent]!];
      at = parent;
    }
  }

  pop(): string | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let smallest = at;
      if (left < items.length && byName(items[left]!, items[smallest]!) < 0) smallest = left;
      if (right < items.length && byName(items[right]!, items[smallest]!) < 0) smallest = right;
      if (smallest === at) return top;
      [items[smallest], items[at]] = [items[at]!, items[smallest]!];
      at = smallest;
    }
  }
}

/** `edges(node)` restricted to `members`, without duplicates, smallest name first. */
const edgesWithin = (members: ReadonlySet<string>, edges: Edges, node: string): string[] =>
  [...new Set(edges(node))].filter((next) => members.has(next)).sort(byName);

/**
 * Orders `nodes` so that every node comes after the nodes `before` names; among nodes that are
 * ready at the same time the smallest name goes first. Refuses with a cycle when none exists.
 */
export function topologicalOrder(nodes: Iterable<string>, before: Edges): OrderResult {
  const members = new Set(nodes);
  const unmet = new Map<string, number>();
  const after = new Map<string, string[]>();
  for (const node of members) {
    const predecessors = edgesWithin(members, before, node);
    unmet.set(node, predecessors.length);
    for (const predecessor of predecessors) {
      const list = after.get(predecessor);
      if (list === undefined) after.set(predecessor, [node]);
      else list.push(node);
    }
  }
  const ready = new NameHeap();
  for (const [node, count] of unmet) if (count === 0) ready.push(node);
  const order: string[] = [];
  for (let node = ready.pop(); node !== undefined; node = ready.pop()) {
    order.push(node);
    for (const next of after.get(node) ?? []) {
      const left = (unmet.get(next) ?? 0) - 1;
      unmet.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (order.length === members.size) return { ok: true, order };
  const placed = new Set(order);
  const stuck = new Set([...members].filter((node) => !placed.has(node)));
  const cycle = findCycle(stuck, before);
  if (cycle === null) throw new Error('topologicalOrder: nodes left unordered but no cycle among them');
  return { ok: false, cycle };
}

/** Rotates a closed path (`[a, b, a]`) to start at its smallest name, so one cycle has one spelling. */
function canonicalCycle(closed: string[]): string[] {
  const ring = closed.slice(0, -1);
  let start = 0;
  ring.forEach((node, at) => {
    if (byName(node, ring[start]!) < 0) start = at;
  });
  const rotated = [...ring.slice(start), ...ring.slice(0, start)];
  return [...rotated, rotated[0]!];
}

/**
 * A cycle among `members` following `edges`, as a closed path that starts and ends at its
 * smallest name (`['a', 'b', 'c', 'a']`: a → b → c → a), or null when there is none. Iterative
 * depth-first search, so long dependency chains cannot overflow the stack.
 */
export function findCycle(members: ReadonlySet<string>, edges: Edges): string[] | null {
  const open = new Set<string>();
  const done = new Set<string>();
  for (const root of [...members].sort(byName)) {
    if (done.has(root)) continue;
    const path = [root];
    const frames = [{ next: edgesWithin(members, edges, root), at: 0 }];
    open.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const next = frame.next[frame.at++];
      if (next === undefined) {
        const finished = path.pop()!;
        open.delete(finished);
        done.add(finished);
        frames.pop();
      } else if (open.has(next)) {
        return canonicalCycle([...path.slice(path.indexOf(next)), next]);
      } else if (!done.has(next)) {
        open.add(next);
        path.push(next);
        frames.push({ next: edgesWithin(members, edges, next), at: 0 });
      }
    }
  }
  return null;
}

/**
 * The strongly connected components of `members` that contain a cycle (two or more nodes, or one
 * node with an edge to itself), each sorted by name, ordered by their smallest name. Tarjan's
 * algorithm, iterative, linear in nodes plus edges.
 */
export function cyclicComponents(members: ReadonlySet<string>, edges: Edges): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const frames: Array<{ node: string; next: string[]; at: number }> = [];
  const enter = (node: string): void => {
    const visitOrder = index.size;
    index.set(node, visitOrder);
    low.set(node, visitOrder);
    stack.push(node);
    onStack.add(node);
    frames.push({ node, next: edgesWithin(members, edges, node), at: 0 });
  };
  const lower = (node: string, value: number): void => {
    if (value < low.get(node)!) low.set(node, value);
  };
  for (const root of [...members].sort(byName)) {
    if (index.has(root)) continue;
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const next = frame.next[frame.at++];
      if (next !== undefined) {
        if (!index.has(next)) enter(next);
        else if (onStack.has(next)) lower(frame.node, index.get(next)!);
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined) lower(parent.node, low.get(frame.node)!);
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      if (component.length > 1 || frame.next.includes(frame.node)) components.push(component.sort(byName));
    }
  }
  return components.sort((a, b) => byName(a[0]!, b[0]!));
}

/**
 * Every node reachable from `start` along `next`, `start` itself excluded, in breadth-first order, each mapped to the node that reached it first. Neighbours are visited
 * smallest name first, so "first" is deterministic.
 */
export function reach(start: string, next: Edges): Map<string, string> {
  const reachedBy = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const neighbour of [...new Set(next(node))].sort(byName)) {
      if (neighbour === start || reachedBy.has(neighbour)) continue;
      reachedBy.set(neighbour, node);
      queue.push(neighbour);
    }
  }
  return reachedBy;
}

/** Everything `name` needs, directly or not, sorted by name. */
export const transitiveDependencies = (name: string, dependsOn: Edges): string[] =>
  [...reach(name, dependsOn).keys()].sort(byName);

/** Everything that needs `name`, directly or not, sorted by name. */
export const transitiveDependents = (name: string, dependentsOf: Edges): string[] =>
  [...reach(name, dependentsOf).keys()].sort(byName);

/**
 * Turns "node → what it depends on" into "node → what depends on it", restricted to `nodes`;
 * each list sorted by name.
 */
export function invert(nodes: Iterable<string>, dependsOn: Edges): Map<string, string[]> {
  const members = new Set(nodes);
  const dependents = new Map<string, string[]>();
  for (const node of members) {
    for (const dependency of edgesWithin(members, dependsOn, node)) {
      const list = dependents.get(dependency);
      if (list === undefined) dependents.set(dependency, [node]);
      else list.push(node);
    }
  }
  for (const list of dependents.values()) list.sort(byName);
  return dependents;
}
