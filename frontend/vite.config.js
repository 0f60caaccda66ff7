/**
 * The shell's build. Besides the shell itself, each library layers share is an entry of its own
 * whose exports keep their names, and the import map in index.html is filled with the files they
 * became: the shell imports those same files, so the shell and every layer run one copy of each.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { compiledCatalogues } from './catalogues.js';

/** Import-map name → the module built as its entry. */
export const SHARED = {
  preact: 'preact',
  'preact/hooks': 'preact/hooks',
  '@preact/signals': '@preact/signals',
  htm: 'htm',
  '@ward/ui': fileURLToPath(new URL('src/ui/index.js', import.meta.url)),
  // Following a restart, shared with the CLI (`ward modules restart --wait`): TypeScript the
  // build strips, as Node does for the CLI.
  '@ward/restart': fileURLToPath(new URL('../src/restart/follow.ts', import.meta.url)),
};

const entryName = (specifier) => `shared-${specifier.replace(/^@/, '').replace(/[^a-z0-9]+/gi, '-')}`;

/** Replaces the import map placeholder of index.html with the hashed file of each shared entry. */
function importMap() {
  return {
    name: 'ward-import-map',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const files = new Map(
        Object.values(bundle)
          .filter((output) => output.type === 'chunk' && output.isEntry)
          .map((chunk) => [chunk.name, chunk.fileName]),
      );
      const imports = Object.fromEntries(
        Object.keys(SHARED).map((specifier) => {
          const file = files.get(entryName(specifier));
          if (file === undefined) throw new Error(`the shared entry for ${specifier} was not built`);
          return [specifier, `/${file}`];
        }),
      );
      const html = bundle['index.html'];
      html.source = String(html.source).replace(
        '"__WARD_IMPORT_MAP__"',
        JSON.stringify({ imports }, null, 2).replace(/\n/g, '\n    '),
      );
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  publicDir: false,
  plugins: [compiledCatalogues(), importMap()],
  resolve: { alias: { '@ward/ui': SHARED['@ward/ui'] } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: {
        index: fileURLToPath(new URL('index.html', import.meta.url)),
        ...Object.fromEntries(Object.entries(SHARED).map(([specifier, id]) => [entryName(specifier), id])),
      },
      // Layers import these entries by name: every export must stay, under its own name.
      preserveEntrySignatures: 'strict',
    },
  },
});
