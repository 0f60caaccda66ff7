/**
 * Turns one module directory into a DiskModule, or into the problems that stop it being one.
 * One readdir answers every "is this file there" question, so each module costs two reads (and a
 * stat or two for a frontend layer's entry).
 */
import { join } from 'node:path';
import { exists, isDirLike, listDir } from './dirs.ts';
import { layerEntry } from './layer-entry.ts';
import { readManifest } from './manifest.ts';
import type { Category, DiskModule, ManifestProblem } from '../planner/types.ts';

export interface Candidate {
  dir: string;
  category: Category;
  /** Set when the directory must carry the module's name (everything except npm packages). */
  expectedName?: string;
}

/** null: a folder that is not a module at all (no manifest, and nothing claims it is one). */
export type Loaded = { module: DiskModule } | { problems: ManifestProblem[] } | null;

export async function loadModuleDir({ dir, category, expectedName }: Candidate): Promise<Loaded> {
  const entries = (await listDir(dir)) ?? [];
  const names = new Set(entries.map((entry) => entry.name));
  const manifestFile = join(dir, 'manifest.json');
  if (!names.has('manifest.json')) {
    if (expectedName !== undefined) return null;
    const message = 'declares "ward": {"module": true} but has no manifest.json next to it';
    return { problems: [{ file: join(dir, 'package.json'), path: '/', message, module: null }] };
  }
  const result = await readManifest(manifestFile, expectedName === undefined ? {} : { expectedName });
  if (!result.ok) return { problems: result.problems };
  const manifest = result.manifest;
  const problems: ManifestProblem[] = [];
  const report = (path: string, message: string) =>
    problems.push({ file: manifestFile, path, message, module: manifest.name });
  const optionalFile = (base: string): string | null => {
    const present = [`${base}.ts`, `${base}.js`].filter((file) => names.has(file));
    if (present.length > 1)
      report('/', `ships both ${present.join(' and ')}; keep one so it is clear which runs`);
    return present[0] === undefined ? null : join(dir, present[0]);
  };
  const hooks = optionalFile('hooks');
  const routes = optionalFile('routes');
  const commands = optionalFile('commands');
  const services = optionalFile('services');
  const layer = manifest.frontend === undefined ? null : await layerEntry(dir, manifest.frontend);
  if (layer?.ok === false) report('/frontend', layer.message);
  const api = manifest.api ?? null;
  if (api !== null && !(await exists(join(dir, api)))) {
    report('/api', `public API "${api}" does not exist in ${dir}`);
  }
  if (problems.length > 0) return { problems };
  const migrations = entries.find((entry) => entry.name === 'migrations');
  return {
    module: {
      name: manifest.name,
      version: manifest.version,
      category,
      dir,
      manifest,
      depends: manifest.depends ?? [],
      requires: Object.fromEntries(
        Object.entries(manifest.requires ?? {}).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      ),
      removable: manifest.removable ?? true,
      hasMigrationBranch: migrations !== undefined && isDirLike(migrations),
      hooks,
      routes,
      commands,
      services,
      frontend: layer?.ok === true ? layer.entry : null,
      api: api === null ? null : join(dir, api),
    },
  };
}
