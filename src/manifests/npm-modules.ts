/**
 * Finds npm packages that are Ward modules: declared dependencies of the backend's package.json
 * whose own package.json has `"ward": {"module": true}`. Only declared dependencies count, as in
 * Strapi's plugin discovery: `npm install <module>` declares it, transitive packages are never
 * modules by accident, and a start-up reads a dozen package.json files instead of every one of
 * the ~400 in node_modules.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManifestProblem } from '../planner/types.ts';

/** Directories of module packages under `<packageRoot>/node_modules`, scoped names included. */
export async function wardPackageDirs(packageRoot: string, problems: ManifestProblem[]): Promise<string[]> {
  const names = await declaredDependencies(join(packageRoot, 'package.json'), problems);
  const marked = await Promise.all(
    names.map(async (name) => {
      const dir = join(packageRoot, 'node_modules', name);
      return (await isWardPackage(dir, problems)) ? dir : null;
    }),
  );
  return marked.filter((dir) => dir !== null);
}

async function declaredDependencies(file: string, problems: ManifestProblem[]): Promise<string[]> {
  const manifest = await readJson<{ dependencies?: object; optionalDependencies?: object }>(file, problems);
  return [
    ...Object.keys(manifest?.dependencies ?? {}),
    ...Object.keys(manifest?.optionalDependencies ?? {}),
  ].sort();
}

/** A declared package that is not installed (yet) is npm's business, not a module problem. */
async function isWardPackage(dir: string, problems: ManifestProblem[]): Promise<boolean> {
  const manifest = await readJson<{ ward?: { module?: unknown } }>(join(dir, 'package.json'), problems);
  return manifest?.ward?.module === true;
}

async function readJson<T>(file: string, problems: ManifestProblem[]): Promise<T | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    problems.push({
      file,
      path: '/',
      message: `is not valid JSON: ${(error as Error).message}`,
      module: null,
    });
    return null;
  }
}
