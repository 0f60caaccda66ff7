/**
 * A module reaches another only through Ward at run time (`sdk.modules.get`); of its files it may
 * import only the types of the public API (`import type`, erased before the code runs), and only
 * of a module it lists in `depends`. ESLint enforces the same (scripts/eslint/module-boundary.js);
 * this scan is the check that needs no linter.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';

const MODULES = path.resolve(import.meta.dirname, '../../modules');

/** Static imports, re-exports, side-effect imports and `import()` with a relative specifier. */
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

interface CrossImport {
  file: string;
  importer: string;
  imported: string;
  /** The imported file, relative to its module's folder. */
  target: string;
}

/** The imports in `source` (a file of module `importer`) that land in another module's folder. */
function crossImports(file: string, source: string): CrossImport[] {
  const importer = path.relative(MODULES, file).split(path.sep)[0]!;
  return [...source.matchAll(RELATIVE_IMPORT)].flatMap(([, specifier]) => {
    const [imported, ...rest] = path
      .relative(MODULES, path.resolve(path.dirname(file), specifier!))
      .split(path.sep);
    return imported === undefined || imported === importer || imported === '..'
      ? []
      : [{ file: path.relative(MODULES, file), importer, imported, target: rest.join('/') }];
  });
}

async function scan(): Promise<{ found: CrossImport[]; depends: Map<string, string[]> }> {
  const depends = new Map<string, string[]>();
  const found: CrossImport[] = [];
  for (const entry of await readdir(MODULES, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (
      entry.name === 'manifest.json' &&
      entry.parentPath === path.join(MODULES, path.basename(entry.parentPath))
    ) {
      const manifest = JSON.parse(await readFile(file, 'utf8')) as { name: string; depends?: string[] };
      depends.set(manifest.name, manifest.depends ?? []);
    } else if (entry.isFile() && /\.[cm]?[jt]s$/.test(entry.name))
      found.push(...crossImports(file, await readFile(file, 'utf8')));
  }
  return { found, depends };
}

test('a module imports of another module only its public API, and only when it lists that module in depends', async (t) => {
  const { found, depends } = await scan();
  // The scan sees the imports that exist (migration_import types the documents API it stores binaries with).
  t.true(found.some((one) => one.importer === 'migration_import' && one.imported === 'documents'));
  const undeclared = found
    .filter((one) => !(depends.get(one.importer) ?? []).includes(one.imported))
    .map((one) => `${one.file} imports from ${one.imported}, which is not in the depends of ${one.importer}`);
  t.deepEqual(undeclared, []);
  const internals = found
    .filter((one) => one.target !== 'api.ts')
    .map((one) => `${one.file} imports ${one.imported}/${one.target}, not ${one.imported}'s public API`);
  t.deepEqual(internals, []);
});

test('the official modules have no run-time import of another module: their code reaches it through Ward', async (t) => {
  const runtime: string[] = [];
  for (const entry of await readdir(MODULES, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.[cm]?[jt]s$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const [statement] of (await readFile(file, 'utf8')).matchAll(
      /^(?:import|export)\s[^;]*?from\s+'[^']+';/gms,
    ))
      if (!/^(?:import|export) type /.test(statement) && crossImports(file, statement).length > 0)
        runtime.push(`${path.relative(MODULES, file)}: ${statement.split('\n')[0]}`);
  }
  t.deepEqual(runtime, []);
});

test('the scan finds static, re-exported and dynamic imports into another module', (t) => {
  const file = path.join(MODULES, 'patients/lib/x.ts');
  const source = [
    "import { a } from '../../documents/lib/a.ts';",
    "export { b } from '../../appointments/b.ts';",
    "const c = await import('../../base/c.ts');",
    "import { own } from './own.ts';",
    "import { up } from '../routes.ts';",
  ].join('\n');
  t.deepEqual(
    crossImports(file, source).map((one) => one.imported),
    ['documents', 'appointments', 'base'],
  );
});
