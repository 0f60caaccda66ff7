/**
 * The route table: every route's template, built once at start, looked up per request. Pure.
 *
 * It answers exactly as @koa/router (non-strict, case-insensitive, on path-to-regexp 8) did, which
 * Ward used before: a template matches its path with or without one trailing slash, its fixed
 * parts in any letter case; of the routes whose template matches, the one registered first for
 * the request's method wins (HEAD is answered by GET routes); the methods of all of them are
 * what the path allows. What changed is the cost: @koa/router tested every route's regular
 * expression on every request. Here a path with no parameter is one Map lookup, resolved at
 * build; others walk a tree of segments (a fixed segment, a `:param` segment, a `*rest` tail),
 * which keeps every candidate so that registration order still decides. A template the tree
 * cannot express (a parameter inside a segment, an optional group) is matched by its
 * path-to-regexp expression, as before.
 *
 * Written here rather than taken from a router such as find-my-way: those pick the most specific
 * route (fixed before parameter) whatever the order, and refuse or merge what @koa/router accepted,
 * so modules written against the old matching would answer differently.
 */
import { createRequire } from 'node:module';
import type * as PathToRegexp from 'path-to-regexp';

export interface TableRoute<T> {
  method: string;
  template: string;
  value: T;
}

export interface Found<T> {
  /** The route that answers, or null when none does for this method. */
  route: TableRoute<T> | null;
  /** Its parameters, decoded. */
  params: Record<string, string>;
  /** Every method some route on this path answers (GET brings HEAD), in registration order; empty: no route has the path. */
  allowed: readonly string[];
}

export interface RouteTable<T> {
  find(method: string, path: string): Found<T>;
}

interface Entry<T> {
  index: number;
  route: TableRoute<T>;
  /** Its template is fixed text only. */
  fixed: boolean;
  /** The names of the tree's captured values, in order; for a tail, its name is last. */
  names: readonly string[];
}

type TailKind = 'required' | 'optional' | 'group';

interface Tail<T> {
  kind: TailKind;
  entry: Entry<T>;
}

interface Node<T> {
  fixed: Map<string, Node<T>>;
  param: Node<T> | null;
  ends: Entry<T>[];
  tails: Tail<T>[];
}

interface Expression<T> {
  entry: Entry<T>;
  regexp: RegExp;
  names: readonly string[];
}

interface Candidate<T> {
  entry: Entry<T>;
  params: Record<string, string>;
}

interface Parsed {
  /** Lower-case fixed text, or null for a parameter. */
  segments: (string | null)[];
  names: string[];
  /** `/*name` (one or more characters), `/{*name}` (none or more), `{/*name}` (nothing, or a slash and one or more). */
  tail: { kind: TailKind; name: string } | null;
}

const FIXED = /^[A-Za-z0-9._~-]+$/;
const PARAM = /^:([A-Za-z_$][A-Za-z0-9_$]*)$/;
const TAILS: readonly [RegExp, TailKind][] = [
  [/\{\/\*([A-Za-z_$][A-Za-z0-9_$]*)\}$/, 'group'],
  [/\/\{\*([A-Za-z_$][A-Za-z0-9_$]*)\}$/, 'optional'],
  [/\/\*([A-Za-z_$][A-Za-z0-9_$]*)$/, 'required'],
];
const NOT_ASCII = /[^ -~\t\n\r]/;

/** A template in the tree's terms, or null when only path-to-regexp can match it. */
export function parseTemplate(template: string): Parsed | null {
  let rest = template;
  let tail: Parsed['tail'] = null;
  for (const [pattern, kind] of TAILS) {
    const match = pattern.exec(rest);
    if (match === null) continue;
    tail = { kind, name: match[1] as string };
    rest = rest.slice(0, match.index);
    break;
  }
  if (!rest.startsWith('/')) return null;
  const segments: (string | null)[] = [];
  const names: string[] = [];
  for (const segment of rest.slice(1).split('/')) {
    const param = PARAM.exec(segment);
    if (param !== null) {
      segments.push(null);
      names.push(param[1] as string);
    } else if (FIXED.test(segment)) segments.push(segment.toLowerCase());
    else return null;
  }
  if (tail !== null) names.push(tail.name);
  return { segments, names, tail };
}

/**
 * A request's segment as the fixed text of a template compares: letter case folded the way a
 * case-insensitive regular expression folds it, which never turns any other character into ASCII.
 */
function folded(text: string): string {
  const lower = text.toLowerCase();
  return lower === text || !NOT_ASCII.test(text) ? lower : text;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const newNode = <T>(): Node<T> => ({ fixed: new Map(), param: null, ends: [], tails: [] });

function insert<T>(root: Node<T>, parsed: Parsed, entry: Entry<T>): void {
  let node = root;
  for (const segment of parsed.segments) {
    if (segment === null) node = node.param ??= newNode();
    else {
      let next = node.fixed.get(segment);
      if (next === undefined) node.fixed.set(segment, (next = newNode()));
      node = next;
    }
  }
  if (parsed.tail === null) node.ends.push(entry);
  else node.tails.push({ kind: parsed.tail.kind, entry });
}

function paramsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    const value = values[index];
    if (value !== undefined && value !== '') params[name] = decoded(value);
  });
  return params;
}

/** The value a tail captures from what follows its node (`/a/b` or ''), or null when it does not match. */
function tailValue(kind: TailKind, remainder: string): string | null {
  if (kind === 'required') return remainder.length >= 2 ? remainder.slice(1) : null;
  if (kind === 'optional') return remainder.length >= 1 ? remainder.slice(1) : null;
  return remainder.length <= 1 ? '' : remainder.slice(1);
}

/** Every route of the tree whose template matches `parts` (a path split at its slashes), in no order. */
function walk<T>(
  node: Node<T>,
  parts: readonly string[],
  at: number,
  values: string[],
  out: Candidate<T>[],
): void {
  const left = parts.length - at;
  // The end of the path, or only the one trailing slash a template may be asked with.
  if (left === 0 || (left === 1 && parts[at] === ''))
    for (const entry of node.ends) out.push({ entry, params: paramsOf(entry.names, values) });
  for (const { kind, entry } of node.tails) {
    const value = tailValue(kind, left === 0 ? '' : `/${parts.slice(at).join('/')}`);
    if (value !== null) out.push({ entry, params: paramsOf(entry.names, [...values, value]) });
  }
  if (left === 0) return;
  const part = parts[at] as string;
  if (part === '') return;
  const fixed = node.fixed.get(folded(part));
  if (fixed !== undefined) walk(fixed, parts, at + 1, values, out);
  if (node.param !== null) {
    values.push(part);
    walk(node.param, parts, at + 1, values, out);
    values.pop();
  }
}

/** The methods a route answers, as @koa/router listed them: HEAD before GET. */
const methodsOf = (method: string): string[] => (method === 'GET' ? ['HEAD', 'GET'] : [method]);

function allowedBy(entries: readonly Entry<unknown>[]): string[] {
  return [...new Set(entries.flatMap((entry) => methodsOf(entry.route.method)))];
}

/** The first route registered for `method` among `candidates`, which are in registration order. */
function chosen<T>(candidates: readonly Candidate<T>[], method: string): Candidate<T> | null {
  return candidates.find(({ entry }) => methodsOf(entry.route.method).includes(method)) ?? null;
}

interface Resolved<T> {
  byMethod: Map<string, TableRoute<T>>;
  allowed: readonly string[];
}

const NOTHING: Found<never> = Object.freeze({
  route: null,
  params: Object.freeze({}),
  allowed: Object.freeze([]),
});

/** Builds the table; `routes` in registration order, which decides between templates that match the same path. */
export function routeTable<T>(routes: readonly TableRoute<T>[]): RouteTable<T> {
  const root = newNode<T>();
  const expressions: Expression<T>[] = [];
  const fixedPaths: string[] = [];
  routes.forEach((route, index) => {
    const parsed = parseTemplate(route.template);
    const fixed =
      parsed !== null && parsed.tail === null && parsed.segments.every((segment) => segment !== null);
    const entry: Entry<T> = { index, route, fixed, names: parsed?.names ?? [] };
    if (parsed === null) expressions.push(compileExpression(entry));
    else insert(root, parsed, entry);
    if (fixed) fixedPaths.push(`/${parsed.segments.join('/')}`);
  });

  const candidates = (path: string): Candidate<T>[] => {
    const out: Candidate<T>[] = [];
    if (path.startsWith('/')) walk(root, path.slice(1).split('/'), 0, [], out);
    for (const expression of expressions) {
      const match = expression.regexp.exec(path);
      if (match !== null)
        out.push({ entry: expression.entry, params: paramsOf(expression.names, match.slice(1)) });
    }
    return out.sort((a, b) => a.entry.index - b.entry.index);
  };

  // A path without parameters whose every matching template is fixed too is answered from a Map:
  // what matches it does not depend on the request (its letter case aside, which matching ignores).
  const resolved = new Map<string, Resolved<T>>();
  for (const path of fixedPaths) {
    if (resolved.has(path)) continue;
    const found = candidates(path);
    if (!found.every(({ entry }) => entry.fixed)) continue;
    const byMethod = new Map<string, TableRoute<T>>();
    for (const { entry } of found)
      for (const method of methodsOf(entry.route.method))
        if (!byMethod.has(method)) byMethod.set(method, entry.route);
    resolved.set(path, { byMethod, allowed: allowedBy(found.map(({ entry }) => entry)) });
  }

  return {
    find(method, path) {
      // Not a path ending in a slash: `/{*rest}` tails tell `/a/` from `/a`.
      const known = path.endsWith('/') ? undefined : resolved.get(folded(path));
      if (known !== undefined)
        return { route: known.byMethod.get(method) ?? null, params: {}, allowed: known.allowed };
      const found = candidates(path);
      if (found.length === 0) return NOTHING;
      const winner = chosen(found, method);
      return {
        route: winner?.entry.route ?? null,
        params: winner?.params ?? {},
        allowed: allowedBy(found.map(({ entry }) => entry)),
      };
    },
  };
}

/** path-to-regexp's expression for a template, with the options @koa/router gave it. */
function compileExpression<T>(entry: Entry<T>): Expression<T> {
  // Loaded only for such a template: no route of Ward's own or of its modules has one.
  const { pathToRegexp } = createRequire(import.meta.url)('path-to-regexp') as typeof PathToRegexp;
  const { regexp, keys } = pathToRegexp(entry.route.template, {
    sensitive: false,
    end: true,
    trailing: true,
  });
  return { entry, regexp, names: keys.map((key) => key.name) };
}
