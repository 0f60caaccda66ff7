/**
 * Who may do what, as pure functions. A role's permissions are the union of what every installed
 * module grants it in its manifest and what the deployment's grants file adds. Grant forms:
 * - a permission name, `intake.job.read`;
 * - `<module>.*`, every permission of one module (grants file only);
 * - `*`: in a grants file, every permission; in a manifest, every permission *of that module*.
 * A manifest only grants within its own namespace, so installing a module can never widen access
 * to another module's data; cross-module grants belong in the grants file, which the tenant owns.
 */
import type { Manifest } from '../planner/types.ts';

export interface PermissionSet {
  /** `*` from the grants file: everything. */
  readonly all: boolean;
  /** Modules all of whose permissions are granted (`<module>.*`). */
  readonly namespaces: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
}

export const NO_PERMISSIONS: PermissionSet = { all: false, namespaces: new Set(), names: new Set() };

export const namespaceOf = (permission: string): string => {
  const dot = permission.indexOf('.');
  return dot === -1 ? permission : permission.slice(0, dot);
};

/** On every request: two Set lookups at most. */
export function can(set: PermissionSet, permission: string): boolean {
  return set.all || set.names.has(permission) || set.namespaces.has(namespaceOf(permission));
}

export function union(sets: readonly PermissionSet[]): PermissionSet {
  return {
    all: sets.some((set) => set.all),
    namespaces: new Set(sets.flatMap((set) => [...set.namespaces])),
    names: new Set(sets.flatMap((set) => [...set.names])),
  };
}

/** Every permission of `set` among `known` names, sorted: what `/me` lists for the frontend. */
export function expand(set: PermissionSet, known: Iterable<string>): string[] {
  return [...new Set(known)].filter((name) => can(set, name)).sort();
}

/** The grants file's content: role -> grants. */
export type Grants = Readonly<Record<string, readonly string[]>>;

export interface PermissionSource {
  name: string;
  manifest: Pick<Manifest, 'permissions' | 'role_permissions' | 'navigation'>;
}

export interface PermissionMap {
  roles: ReadonlyMap<string, PermissionSet>;
  /** Every permission name Ward knows of: declared, used by navigation or routes, or granted by name. */
  known: readonly string[];
  /** Grants that were ignored, each saying why; logged at start-up. */
  warnings: string[];
}

interface MutableSet {
  all: boolean;
  namespaces: Set<string>;
  names: Set<string>;
}

/**
 * `modules` are the installed modules only: a module that is not installed grants nothing, so
 * uninstalling one withdraws its grants at the next start.
 */
export function buildPermissionMap(
  modules: readonly PermissionSource[],
  grants: Grants,
  routePermissions: readonly string[] = [],
): PermissionMap {
  const roles = new Map<string, MutableSet>();
  const roleSet = (role: string): MutableSet => {
    let set = roles.get(role);
    if (set === undefined) roles.set(role, (set = { all: false, namespaces: new Set(), names: new Set() }));
    return set;
  };
  const known = new Set(routePermissions);
  const warnings: string[] = [];
  for (const module of modules) {
    for (const name of module.manifest.permissions ?? []) known.add(name);
    for (const entry of module.manifest.navigation ?? []) known.add(entry.permission);
    for (const [role, list] of Object.entries(module.manifest.role_permissions ?? {})) {
      const set = roleSet(role);
      for (const grant of list ?? []) {
        if (grant === '*') set.namespaces.add(module.name);
        else if (namespaceOf(grant) === module.name) set.names.add(grant);
        else
          warnings.push(
            `${module.name} grants ${grant} to role ${role}, outside its own namespace: ignored (grant it in the grants file instead)`,
          );
      }
    }
  }
  const installed = new Set(modules.map((module) => module.name));
  const definedByModules = new Set(known);
  // Kept either way, so a grant takes effect once its module is installed; but a typo would
  // otherwise grant nothing without a word.
  const undefinedGrant = (role: string, grant: string, what: string) =>
    warnings.push(
      `the grants file grants ${grant} to role ${role}, but ${what}: a typo, or a module not installed?`,
    );
  for (const [role, list] of Object.entries(grants)) {
    const set = roleSet(role);
    for (const grant of list) {
      if (grant === '*') set.all = true;
      else if (grant.endsWith('.*')) {
        set.namespaces.add(grant.slice(0, -2));
        if (!installed.has(grant.slice(0, -2)))
          undefinedGrant(role, grant, 'no installed module has that name');
      } else {
        if (!definedByModules.has(grant)) undefinedGrant(role, grant, 'no installed module defines it');
        set.names.add(grant);
        known.add(grant);
      }
    }
  }
  return { roles, known: [...known].sort(), warnings };
}

/** The union of the roles' permissions; a role nothing grants anything to has none. */
export function permissionsOf(map: PermissionMap, roles: readonly string[]): PermissionSet {
  return union(roles.map((role) => map.roles.get(role) ?? NO_PERMISSIONS));
}

/** Roles that something grants a permission to: the roles an operator may assign. */
export const knownRoles = (map: PermissionMap): string[] => [...map.roles.keys()].sort();

/**
 * The roles a credential acts with. A token scoped to a role acts with that role alone, and only
 * while its user still holds it: revoking the role from the user disarms the token too.
 */
export function effectiveRoles(userRoles: readonly string[], scope: string | null): string[] {
  if (scope === null) return [...userRoles];
  return userRoles.includes(scope) ? [scope] : [];
}
