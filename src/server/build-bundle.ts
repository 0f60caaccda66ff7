/**
 * Builds the backend's bundle (src/server/backend-bundle.ts) with rolldown, Vite's bundler: the
 * entry point src/server/bundle-entry.ts and everything it imports, libraries included, into
 * build/, with the inputs it read recorded beside it; and beside it the lean `ward modules list`'s
 * (src/cli/list-entry.ts), recorded with it. What a start imports later (knex, the
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
  bundleStaleness,
  LIST_BUNDLE_ENTRY,
  sha256,
  staleBundleError,
  type BundledFile,
  type BundleInputs,
} from './backend-bundle.ts';

const posix = (file: string) => file.split(path.sep).join('/');

/** Recorded as an input: it pins the bundled packages' versions (src/server/backend-bundle.ts). */
const LOCKFILE = 'package-lock.json';

/** The kinds of Ward's own files the build reads itself, to record exactly what it bundled. */
const OWN_TYPES: Readonly<Record<string, 'ts' | 'js'>> = { '.ts': 'ts', '.js': 'js', '.mjs': 'js' };

const isPackage = (id: string) => id.split(path.sep).includes('node_modules');

/** `id` as an input of the bundle, with the content its record describes (stat taken first). */
async function recorded(root: string, id: string): Promise<{ file: BundledFile; code: Buffer }> {
  const { size, mtimeMs } = await lstat(id);
  const code = await readFile(id);
  return { file: { path: posix(path.relative(root, id)), size, mtimeMs, sha256: sha256(code) }, code };
}

/** Builds the bundle of the Ward folder `root` into its build/; resolves with what it recorded. */
export async function buildBackendBundle(root: string): Promise<BundleInputs> {
  const { build } = await import('rolldown');
  const dir = path.join(root, BUNDLE_DIR);
  await rm(dir, { recursive: true, force: true });
  // Ward's files are read here and recorded as read: a file saved while the build runs is then
  // either in the bundle as recorded or newer than the record, never recorded as what it is not.
  // Each is read once for both builds, so both bundle the content the record describes.
  const read = new Map<string, { file: BundledFile; code: Buffer }>();
  const recordLoads = {
    name: 'ward-record-inputs',
    async load(id: string) {
      const moduleType = OWN_TYPES[path.extname(id)];
      if (!path.isAbsolute(id) || moduleType === undefined || isPackage(id)) return null;
      let once = read.get(id);
      if (once === undefined) {
        once = await recorded(root, id);
        read.set(id, once);
      }
      return { code: once.code.toString('utf8'), moduleType };
    },
  };
  // Two builds rather than one with two entries: chunks shared between the backend and the list
  // would split the backend's start into more files. The list's chunks carry a prefix of their own.
  const entries = [
    { entry: BUNDLE_ENTRY, source: path.join('src', 'server', 'bundle-entry.ts'), chunks: '' },
    { entry: LIST_BUNDLE_ENTRY, source: path.join('src', 'cli', 'list-entry.ts'), chunks: 'list-' },
  ];
  const ids = new Set<string>();
  for (const { entry, source, chunks } of entries) {
    const output = await build({
      input: { [path.basename(entry, '.mjs')]: path.join(root, source) },
      platform: 'node',
      plugins: [recordLoads],
      // Loaded at run time from their own folders, as the sources load them.
      external: [/\/modules\//, /\/generated\//],
      output: {
        dir,
        format: 'esm',
        entryFileNames: '[name].mjs',
        chunkFileNames: `${chunks}[name]-[hash].mjs`,
      },
      // Direct eval in a library (a warning about minifying, which this build does not do) is noise.
      logLevel: 'silent',
    });
    for (const chunk of output.output)
      if (chunk.type === 'chunk') for (const id of chunk.moduleIds) if (path.isAbsolute(id)) ids.add(id);
  }
  // Packages are pinned by the lockfile; Ward's own files are recorded one by one.
  const own = [...ids].filter((id) => !isPackage(id));
  const files: BundledFile[] = [];
  for (const id of [...own.sort(), path.join(root, LOCKFILE)]) {
    files.push((read.get(id) ?? (await recorded(root, id))).file);
  }
  const inputs: BundleInputs = { files };
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(root, BUNDLE_INPUTS), `${JSON.stringify(inputs, null, 1)}\n`);
  return inputs;
}

/**
 * Builds the bundle of `root` again if it is not the code on disk (`building` is told why first).
 * Without rolldown (an install without development dependencies) it cannot, and refuses as a
 * backend would.
 */
export async function freshBundle(root: string, building: (reason: string) => void): Promise<void> {
  const stale = bundleStaleness(root);
  if (stale === null) return;
  building(stale);
  try {
    await buildBackendBundle(root);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') throw staleBundleError(stale);
    throw error;
  }
}
