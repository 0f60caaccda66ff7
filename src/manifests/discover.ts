/**
 * Finds every module on disk: official ones in `<root>/modules`, community ones in npm packages
 * (declared dependencies) marked `"ward": {"module": true}` and in the folders of WARD_MODULE_PATHS. Never throws for a
 * bad module: what cannot become a DiskModule becomes a ManifestProblem, so one broken package
 * cannot keep the rest of the stack from starting.
 */
import { join, resolve } from 'node:path';
import { isDirLike, listDir } from './dirs.ts';
import { byName } from '../planner/graph.ts';
import { type Candidate, loadModuleDir } from './module-dir.ts';
import { wardPackageDirs } from './npm-modules.ts';
import type { Category, DiskModule, Inventory, ManifestProblem } from '../planner/types.ts';

export interface DiscoverOptions {
  /** The backend's directory; relative paths below are resolved against it. */
  root: string;
  /** Folders whose subdirectories are community modules, each named after its module. */
  modulePaths: string[];
  /** The directory whose package.json declares the npm packages to search for community modules. */
  packageRoot: string;
}

export async function discover(options: DiscoverOptions): Promise<Inventory> {
  const root = resolve(options.root);
  const problems: ManifestProblem[] = [];
  const candidates = await Promise.all([
    moduleDirs(join(root, 'modules'), 'official').then((found) => found ?? []),
    ...options.modulePaths.map(async (entry) => {
      const folder = resolve(root, entry);
      const found = await moduleDirs(folder, 'community');
      if (found === null) {
        const message = 'is listed in WARD_MODULE_PATHS but is not a directory';
        problems.push({ file: folder, path: '/', message, module: null });
      }
      return found ?? [];
    }),
    wardPackageDirs(resolve(root, options.packageRoot), problems).then((dirs) =>
      dirs.map((dir): Candidate => ({ dir, category: 'community' })),
    ),
  ]);
  const found: DiskModule[] = [];
  for (const loaded of await Promise.all(candidates.flat().map(loadModuleDir))) {
    if (loaded === null) continue;
    if ('problems' in loaded) problems.push(...loaded.problems);
    else found.push(loaded.module);
  }
  const copiesByName = Map.groupBy(found, (module) => module.name);
  const modules = new Map<string, DiskModule>();
  // Code-unit order, as everywhere in Ward: the same on every machine whatever its locale, and
  // localeCompare would first load ICU's collator, ~4 ms of a ~60 ms `ward modules list`.
  for (const [name, copies] of [...copiesByName].sort(([a], [b]) => byName(a, b))) {
    if (copies.length === 1 && copies[0] !== undefined) modules.set(name, copies[0]);
    else problems.push(...duplicateProblems(copies));
  }
  problems.sort((a, b) => byName(a.file, b.file) || byName(a.path, b.path));
  return { modules, problems };
}

/** Two copies of one name: using either would be a guess, so both are refused. */
function duplicateProblems(copies: DiskModule[]): ManifestProblem[] {
  return copies.map((copy) => {
    const others = copies.filter((other) => other !== copy).map((other) => other.dir);
    const message = `module "${copy.name}" is also defined in ${others.join(', ')}; remove all copies but one`;
    return { file: join(copy.dir, 'manifest.json'), path: '/name', message, module: copy.name };
  });
}

/** Subdirectories of `folder`, each a would-be module named after its directory; null if no folder. */
async function moduleDirs(folder: string, category: Category): Promise<Candidate[] | null> {
  const entries = await listDir(folder);
  return (
    entries
      ?.filter(isDirLike)
      .map((entry) => ({ dir: join(folder, entry.name), category, expectedName: entry.name })) ?? null
  );
}
