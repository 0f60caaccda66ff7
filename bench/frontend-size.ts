/**
 * The JavaScript of the first page: everything index.html loads before any module layer, that is
 * the bootstrap and the sign-in page and every file they import statically (each a
 * <link rel=modulepreload> of index.html), each gzipped as a server would send it, against the
 * 50 KB budget. The signed-in shell, a dynamic import, is printed apart. The sign-in page's part
 * of English is part of the first page, the rest loads with the shell; a browser in another language also loads that language's catalogues before its
 * first render, printed as a further figure per language. Builds the shell first
 * (`--no-build` reads frontend/dist as it is). Unlike the timed benchmarks, its figure does not
 * depend on the machine; it exits non-zero only when the build fails or is missing.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../src/config.ts';
import { NODE } from './lib.ts';

const BUDGET_KB = 50;
const DIST = path.join(ROOT, 'frontend', 'dist');

interface ManifestChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
}

if (!process.argv.includes('--no-build')) {
  const build = spawnSync(NODE, [path.join(ROOT, 'frontend', 'build.js')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`the frontend build exited ${build.status ?? build.signal}`);
}

const manifest = JSON.parse(await readFile(path.join(DIST, '.vite', 'manifest.json'), 'utf8')) as Record<
  string,
  ManifestChunk
>;

/** The entry and its static imports, transitively: what the browser fetches before the shell runs. */
function firstPage(key: string, seen = new Set<string>()): Set<string> {
  const chunk = manifest[key];
  if (chunk === undefined) throw new Error(`frontend/dist/.vite/manifest.json has no ${key}`);
  if (seen.has(chunk.file)) return seen;
  seen.add(chunk.file);
  for (const imported of chunk.imports ?? []) firstPage(imported, seen);
  return seen;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ratio = (bytes: number) =>
  `${(bytes / 1024 / BUDGET_KB).toFixed(2)}x of the ${BUDGET_KB} KB budget (target <= 1.0x)`;
const gzippedSize = async (file: string) =>
  gzipSync(await readFile(path.join(DIST, file)), { level: 9 }).length;

const first = firstPage('index.html');
let raw = 0;
let gzipped = 0;
for (const file of first) {
  const content = await readFile(path.join(DIST, file));
  const size = gzipSync(content, { level: 9 }).length;
  raw += content.length;
  gzipped += size;
  console.log(
    `  ${file.padEnd(44)} ${kb(content.length).padStart(7)} KB  ${kb(size).padStart(6)} KB gzipped`,
  );
}
console.log(`first page JavaScript: ${kb(gzipped)} KB gzipped (${kb(raw)} KB raw) -> ${ratio(gzipped)}`);

/**
 * The signed-in shell: shell.js and what it imports beyond the first page. It is a dynamic import,
 * so the sign-in page draws without it; a browser that has used a session starts fetching it at
 * once (a signed-in reload needs it), any other at the sign-in form's first keystroke.
 */
const shellFiles = [...firstPage('src/shell.js')].filter((file) => !first.has(file));
let shellGzipped = 0;
for (const file of shellFiles) shellGzipped += await gzippedSize(file);
console.log(
  `  the signed-in shell loads after it: ${shellFiles.length} files, ${kb(shellGzipped)} KB gzipped, ` +
    `${kb(gzipped + shellGzipped)} KB with the first page`,
);

/** A language's catalogue chunks (`src/locales/<language>.js`, `src/ui/messages.<language>.js`), by language. */
const CATALOGUE = /^src\/(?:locales\/|ui\/messages\.)([a-z]{2,3})\.js$/;
const languages = new Map<string, string[]>();
for (const chunk of Object.values(manifest))
  if (first.has(chunk.file))
    for (const key of chunk.dynamicImports ?? []) {
      const language = CATALOGUE.exec(key)?.[1];
      const file = manifest[key]?.file;
      if (language !== undefined && file !== undefined)
        languages.set(language, [...(languages.get(language) ?? []), file]);
    }
for (const [language, files] of [...languages].sort()) {
  let extra = 0;
  for (const file of files) extra += await gzippedSize(file);
  console.log(
    `  a "${language}" browser also loads ${files.join(', ')} first: ${kb(extra)} KB gzipped, ` +
      `${kb(gzipped + extra)} KB in all -> ${ratio(gzipped + extra)}`,
  );
}
