/**
 * Builds the backend's bundle (src/server/backend-bundle.ts) with rolldown, Vite's bundler: the
 * entry point src/server/bundle-entry.ts and everything it imports, libraries included, into
 * build/, with the inputs it read recorded beside it. What a start imports later (knex, the
 * applier, pg-boss, prom-client, the password dictionaries, ...) stays in chunks of its own, loaded
 * when first needed, as from the sources. Module code and generated/ are left out: they are loaded
 * at run time from their folders. rolldown is a development dependency: `npm install` runs this
 * (`prepare`), and the container image builds it in a stage that has it.
 */
import { lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  BUNDLE_DIR,
  BUNDLE_ENTRY,
  BUNDLE_INPUTS,
  sha256,
  type BundledFile,
  type BundledPackage,
  type BundleInputs,
} from './backend-bundle.ts';

const posix = (file: string) => file.split(path.sep).join('/');

/** The package folder a bundled file of node_modules comes from (`node_modules/@scope/name`). */
export function packageDir(relative: string): string | null {
  const parts = relative.split('/');
  const last = parts.lastIndexOf('node_modules');
  if (last === -1) return null;
  const name = parts[last + 1]?.startsWith('@') ? 2 : 1;
  return parts.slice(0, last + 1 + name).join('/');
}

/** Builds the bundle of the Ward folder `root` into its build/; resolves with what it recorded. */
export async function buildBackendBundle(root: string): Promise<BundleInputs> {
  const { build } = await import('rolldown');
  const dir = path.join(root, BUNDLE_DIR);
  await rm(dir, { recursive: true, force: true });
  const output = await build({
    input: { [path.basename(BUNDLE_ENTRY, '.mjs')]: path.join(root, 'src', 'server', 'bundle-entry.ts') },
    platform: 'node',
    // Loaded at run time from their own folders, as the sources load them.
    external: [/\/modules\//, /\/generated\//],
    output: { dir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
    // Direct eval in a library (a warning about minifying, which this build does not do) is noise.
    logLevel: 'silent',
  });
  const ids = new Set<string>();
  for (const chunk of output.output)
    if (chunk.type === 'chunk') for (const id of chunk.moduleIds) if (path.isAbsolute(id)) ids.add(id);
  const files: BundledFile[] = [];
  const packages = new Map<string, BundledPackage>();
  for (const id of [...ids].sort()) {
    const relative = posix(path.relative(root, id));
    const pkg = packageDir(relative);
    if (pkg !== null) {
      if (!packages.has(pkg)) {
        const { version } = JSON.parse(await readFile(path.join(root, pkg, 'package.json'), 'utf8')) as {
          version: string;
        };
        packages.set(pkg, { dir: pkg, version });
      }
      continue;
    }
    const { size, mtimeMs } = await lstat(id);
    files.push({ path: relative, size, mtimeMs, sha256: sha256(await readFile(id)) });
  }
  const inputs: BundleInputs = { files, packages: [...packages.values()] };
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(root, BUNDLE_INPUTS), `${JSON.stringify(inputs, null, 1)}\n`);
  return inputs;
}
