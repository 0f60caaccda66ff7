import test from 'ava';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { discover } from '../../src/manifests/discover.ts';
import type { Inventory } from '../../src/planner/types.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const fixtures = join(repo, 'test/fixtures/modules');
const app = join(repo, 'test/fixtures/app');
const packages = join(app, 'node_modules');

/** Discovery as `ward` runs it from `root`, which is also the package root. */
const discoverIn = (root: string, modulePaths: string[] = []): Promise<Inventory> =>
  discover({ root, modulePaths, packageRoot: root });

/** An empty backend root: no official modules, no node_modules. */
const emptyRoot = (): Promise<string> => mkdtemp(join(tmpdir(), 'ward-discover-'));

const problemLines = (inventory: Inventory): string[] =>
  inventory.problems.map((problem) => `${problem.file.replace(repo, '.')}${problem.path} ${problem.message}`);

test('the repository ships base, patients and appointments as official modules', async (t) => {
  const inventory = await discoverIn(repo);
  t.deepEqual(inventory.problems, []);
  t.deepEqual(
    [...inventory.modules.keys()],
    ['appointments', 'base', 'documents', 'migration_import', 'patients'],
  );
  t.deepEqual(inventory.modules.get('patients'), {
    name: 'patients',
    version: '1.3.0',
    category: 'official',
    dir: join(repo, 'modules/patients'),
    // The manifest as written, with nothing added or lost (its defaults are already explicit).
    manifest: JSON.parse(await readFile(join(repo, 'modules/patients/manifest.json'), 'utf8')),
    depends: ['base'],
    requires: {},
    removable: false,
    hasMigrationBranch: true,
    hooks: null,
    routes: join(repo, 'modules/patients/routes.ts'),
    commands: null,
    services: null,
    frontend: 'frontend/index.js',
    api: join(repo, 'modules/patients/api.ts'),
  });
  for (const module of inventory.modules.values()) t.false(module.removable, `${module.name} is official`);
  t.deepEqual(inventory.modules.get('appointments')?.depends, ['patients']);
});

test('WARD_MODULE_PATHS folders bring community modules, each named after its directory', async (t) => {
  const inventory = await discoverIn(repo, [`${fixtures}/legacy`, `${fixtures}/community`]);
  t.deepEqual(inventory.problems, []);
  // Other suites add modules to these shared folders, so only the ones this test is about are named.
  for (const module of inventory.modules.values()) {
    const expected = module.dir.startsWith(fixtures) ? 'community' : 'official';
    t.is(module.category, expected, module.name);
    t.is(module.dir.split('/').at(-1), module.name);
  }
  const portal = join(fixtures, 'community/clinic_portal');
  t.like(inventory.modules.get('clinic_portal'), {
    category: 'community',
    dir: portal,
    depends: ['appointments'],
    removable: true,
    hasMigrationBranch: true,
    hooks: join(portal, 'hooks.ts'),
    routes: null,
    frontend: 'frontend/index.js',
  });
  t.like(inventory.modules.get('legacy_reports'), {
    category: 'community',
    hasMigrationBranch: false,
    hooks: null,
  });
});

test('relative WARD_MODULE_PATHS entries are taken from the root', async (t) => {
  const inventory = await discoverIn(repo, [join(fixtures, 'cycle')]);
  t.deepEqual(inventory.modules.get('cycle_a')?.depends, ['cycle_b']);
  t.deepEqual(inventory.modules.get('cycle_b')?.depends, ['cycle_a']);
});

test('npm packages marked "ward": {"module": true} are community modules, scoped ones too', async (t) => {
  const inventory = await discover({ root: await emptyRoot(), modulePaths: [], packageRoot: app });
  t.deepEqual([...inventory.modules.keys()], ['billing', 'lab_results']);
  t.like(inventory.modules.get('billing'), {
    version: '3.1.0',
    category: 'community',
    dir: join(packages, 'ward-module-billing'),
    depends: ['patients'],
    hasMigrationBranch: true,
  });
  t.like(inventory.modules.get('lab_results'), {
    dir: join(packages, '@acme/ward-lab'),
    hasMigrationBranch: false,
  });
  t.deepEqual(problemLines(inventory), [
    './test/fixtures/app/node_modules/ward-module-nomanifest/package.json/ ' +
      'declares "ward": {"module": true} but has no manifest.json next to it',
  ]);
});

test('every broken module becomes a problem naming its file, and the rest still load', async (t) => {
  const inventory = await discover({
    root: repo,
    modulePaths: [join(fixtures, 'broken'), join(fixtures, 'legacy')],
    packageRoot: repo,
  });
  t.deepEqual(
    [...inventory.modules.keys()],
    ['appointments', 'base', 'documents', 'legacy_reports', 'migration_import', 'patients'],
  );
  const broken = './test/fixtures/modules/broken';
  t.deepEqual(problemLines(inventory), [
    `${broken}/broken_json/manifest.json/ is not valid JSON: Expected double-quoted property name at line 4, column 3`,
    `${broken}/broken_schema/manifest.json/dependencies unknown field; allowed fields are $schema, name, version, ` +
      'summary, depends, requires, removable, permissions, role_permissions, navigation, frontend, api',
    `${broken}/broken_schema/manifest.json/version "1.0" is not a semver version such as 1.0.0 or 2.1.0-beta.1`,
    `${broken}/misnamed/manifest.json/name "renamed" differs from its directory name "misnamed"; rename one`,
    `${broken}/missing_frontend/manifest.json/frontend frontend layer "web" does not exist in ` +
      `${join(fixtures, 'broken/missing_frontend')}; create it, or set "frontend" to the layer's entry file ` +
      '(such as "frontend/index.js") or to its folder',
    `${broken}/two_hooks/manifest.json/ ships both hooks.ts and hooks.js; keep one so it is clear which runs`,
  ]);
  t.deepEqual(
    inventory.problems.map((problem) => problem.module),
    ['broken_json', 'broken_schema', 'broken_schema', 'renamed', 'missing_frontend', 'two_hooks'],
  );
});

test('two modules with one name are both refused, each problem naming the other copy', async (t) => {
  const inventory = await discover({
    root: repo,
    modulePaths: [join(fixtures, 'dupe')],
    packageRoot: app,
  });
  t.false(inventory.modules.has('patients'));
  t.true(inventory.modules.has('appointments'));
  const official = join(repo, 'modules/patients');
  const community = join(fixtures, 'dupe/patients');
  t.deepEqual(
    inventory.problems.filter((problem) => problem.module === 'patients'),
    [
      {
        file: join(official, 'manifest.json'),
        path: '/name',
        message: `module "patients" is also defined in ${community}; remove all copies but one`,
        module: 'patients',
      },
      {
        file: join(community, 'manifest.json'),
        path: '/name',
        message: `module "patients" is also defined in ${official}; remove all copies but one`,
        module: 'patients',
      },
    ],
  );
});

test('a WARD_MODULE_PATHS entry that does not exist is reported, not ignored', async (t) => {
  const root = await emptyRoot();
  const inventory = await discoverIn(root, [join(root, 'missing')]);
  t.deepEqual(inventory.problems, [
    {
      file: join(root, 'missing'),
      path: '/',
      message: 'is listed in WARD_MODULE_PATHS but is not a directory',
      module: null,
    },
  ]);
});

test('folders without a manifest and stray files are not modules', async (t) => {
  const root = await emptyRoot();
  await mkdir(join(root, 'modules/notes'), { recursive: true });
  await writeFile(join(root, 'modules/README.md'), '# modules\n');
  await mkdir(join(root, 'node_modules/.bin'), { recursive: true });
  await mkdir(join(root, 'node_modules/no-package-json'), { recursive: true });
  const inventory = await discoverIn(root);
  t.deepEqual(inventory, { modules: new Map(), problems: [] });
});

test('a module ships hooks.js, routes.js, commands.js and services.ts as either .js or .ts', async (t) => {
  const root = await emptyRoot();
  const dir = join(root, 'modules/notes');
  await mkdir(join(dir, 'migrations'), { recursive: true });
  await writeFile(join(dir, 'manifest.json'), JSON.stringify({ name: 'notes', version: '1.0.0' }));
  await writeFile(join(dir, 'hooks.js'), '');
  await writeFile(join(dir, 'routes.ts'), '');
  await writeFile(join(dir, 'commands.js'), '');
  await writeFile(join(dir, 'services.ts'), '');
  const inventory = await discoverIn(root);
  t.like(inventory.modules.get('notes'), {
    category: 'official',
    hooks: join(dir, 'hooks.js'),
    routes: join(dir, 'routes.ts'),
    commands: join(dir, 'commands.js'),
    services: join(dir, 'services.ts'),
    hasMigrationBranch: true,
    removable: true,
  });
});

test('only declared dependencies are searched for module packages', async (t) => {
  const root = await emptyRoot();
  await mkdir(join(root, 'node_modules/undeclared'), { recursive: true });
  await writeFile(join(root, 'package.json'), JSON.stringify({ dependencies: {} }));
  await writeFile(
    join(root, 'node_modules/undeclared/package.json'),
    JSON.stringify({ name: 'undeclared', ward: { module: true } }),
  );
  await writeFile(
    join(root, 'node_modules/undeclared/manifest.json'),
    JSON.stringify({ name: 'undeclared', version: '1.0.0' }),
  );
  t.deepEqual(await discoverIn(root), { modules: new Map(), problems: [] });
});
