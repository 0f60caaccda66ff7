/**
 * The Manifest type, generated from manifest.schema.json by scripts/generate-manifest-code.ts; do not edit.
 * To change the manifest, edit the schema and run: node scripts/generate-manifest-code.ts
 */

/**
 * Lowercase letters, digits and _, starting with a letter, at most 63 characters; the only form used in SQL and paths.
 */
export type ModuleName = string;
/**
 * Semantic version (semver 2.0) of the module's code; an upgrade is due when it differs from the database.
 */
export type Version = string;
/**
 * An npm version range, such as ^1.2.0, >=1.0.0 <3.0.0 or 1.x.
 */
export type VersionRange = string;
/**
 * `<module>.<resource>.<action>` or `<module>.<action>`: two or more lowercase dot-separated segments.
 */
export type Permission = string;
/**
 * A permission name, or "*" for every permission.
 */
export type Grant = string;
/**
 * Frontend route on Ward's own origin: starting with / and not with // or /\ (which a browser reads as another host), without whitespace or control characters (which a browser drops from a link, so that /<tab>/host becomes //host).
 */
export type RoutePath = string;
/**
 * The module's frontend layer: a path relative to the module directory, without `..` segments.
 */
export type LayerPath = string;
/**
 * The module's public API, which other modules reach through sdk.modules.get: a .ts or .js file relative to the module directory, without `..` segments.
 */
export type ApiPath = string;

/**
 * A Ward module's manifest.json: who the module is, what it needs and what it grants.
 */
export interface Manifest {
  /**
   * Path or URL of this schema, for editors.
   */
  $schema?: string;
  name: ModuleName;
  version: Version;
  /**
   * One line saying what the module is for.
   */
  summary?: string;
  /**
   * Modules that must be installed before this one.
   */
  depends?: ModuleName[];
  /**
   * The versions of its dependencies this module works with: module name to an npm version range such as "^1.2.0". Every name must also be in depends.
   */
  requires?: {
    [k: string]: VersionRange | undefined;
  };
  /**
   * Whether uninstall is allowed without --force; false for official modules.
   */
  removable?: boolean;
  /**
   * Permission names this module defines, namespaced by the module name.
   */
  permissions?: Permission[];
  /**
   * Permissions granted to each role; "*" grants all.
   */
  role_permissions?: {
    [k: string]: Grant[] | undefined;
  };
  /**
   * Entries the frontend shows to users holding the entry's permission.
   */
  navigation?: NavigationEntry[];
  frontend?: LayerPath;
  api?: ApiPath;
}
export interface NavigationEntry {
  label: string;
  path: RoutePath;
  permission: Permission;
  /**
   * Where the entry stands in the sidebar, lowest first: clinical pages 100-399, entries that give none 500, administration 800 and above. Ties go by module name, then by the manifest's order.
   */
  order?: number;
}
