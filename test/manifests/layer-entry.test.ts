/**
 * A manifest's `frontend` names the layer's entry file or a folder whose index.js is the entry, as
 * both guides show it. The folder form reaches the browser as its index.js (modules.json, /active,
 * /layers/), and a layer the shell could not import is a manifest error: `doctor` reports it and
 * `install` refuses it, naming the path and the fix.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { discover } from '../../src/manifests/discover.ts';
import { ROOT } from '../../src/config.ts';
import { scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { serve } from '../helpers/serve.ts';

const ENTRY = "export default { sdk: '^1.0.0', routes: [] };\n";

/** Modules in a fresh WARD_MODULE_PATHS folder: name → [manifest `frontend`, files to create]. */
async function modulesWith(layers: Record<string, [string, string[]]>): Promise<string> {
  const folder = await scratchDir('ward-layers-');
  for (const [name, [frontend, files]] of Object.entries(layers)) {
    const dir = path.join(folder, name);
    await mkdir(dir);
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ name, version: '1.0.0', frontend }));
    for (const file of files) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), ENTRY);
    }
  }
  return folder;
}

test('a layer folder has its index.js as the entry; a folder without one, a missing path or a non-script file is a manifest error naming the fix', async (t) => {
  const folder = await modulesWith({
    as_folder: ['web', ['web/index.js', 'web/chart.js']],
    as_folder_slash: ['./web/', ['web/index.js']],
    as_file: ['web/main.mjs', ['web/main.mjs']],
    no_index: ['web', ['web/app.js']],
    not_there: ['frontend', []],
    not_script: ['web/readme.md', ['web/readme.md']],
  });
  const inventory = await discover({ root: ROOT, modulePaths: [folder], packageRoot: ROOT });
  t.is(inventory.modules.get('as_folder')?.frontend, 'web/index.js');
  t.is(inventory.modules.get('as_folder_slash')?.frontend, 'web/index.js');
  t.is(inventory.modules.get('as_file')?.frontend, 'web/main.mjs');
  const problems = Object.fromEntries(
    inventory.problems.map((problem) => [problem.module, `${problem.path} ${problem.message}`]),
  );
  t.deepEqual(problems, {
    no_index:
      `/frontend frontend layer folder "web" has no index.js, the file the shell imports; ` +
      `add ${path.join(folder, 'no_index', 'web', 'index.js')}, or set "frontend" to the layer's entry file`,
    not_there:
      `/frontend frontend layer "frontend" does not exist in ${path.join(folder, 'not_there')}; create it, ` +
      `or set "frontend" to the layer's entry file (such as "frontend/index.js") or to its folder`,
    not_script:
      '/frontend frontend layer "web/readme.md" is not a JavaScript file; set "frontend" to the ' +
      "layer's entry file (.js or .mjs) or to a folder holding index.js",
  });
});

test('doctor reports a layer folder without index.js and install refuses it, changing nothing', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const folder = await modulesWith({ no_index: ['web', ['web/app.js']] });
  const env = {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: folder,
    WARD_STORAGE_DIR: await scratchDir('ward-storage-'),
    WARD_FRONTEND_DIR: await scratchDir('ward-frontend-'),
  };
  const missing = path.join(folder, 'no_index', 'web', 'index.js');
  const doctor = await ward(['modules', 'doctor'], env);
  t.not(doctor.code, 0);
  t.true(
    doctor.stdout.includes(`has no index.js, the file the shell imports; add ${missing}`),
    doctor.stdout,
  );
  const install = await ward(['modules', 'install', 'no_index'], env);
  t.is(install.code, 1);
  t.true(
    install.stderr.includes(`has no index.js, the file the shell imports; add ${missing}`),
    install.stderr,
  );
  t.regex(install.stderr, /^error: the manifest of no_index is invalid: /);
  const list = await ward(['modules', 'list', '--json'], env);
  t.false(list.stdout.includes('"to_install"'), 'nothing was scheduled');
});

test('a layer named by its folder is listed by its index.js, and the backend serves it as JavaScript', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const folder = await modulesWith({ folder_pages: ['web', ['web/index.js', 'web/chart.js']] });
  const frontend = await scratchDir('ward-frontend-');
  const env = {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: folder,
    WARD_STORAGE_DIR: await scratchDir('ward-storage-'),
    WARD_FRONTEND_DIR: frontend,
  };
  t.is((await ward(['modules', 'install', 'folder_pages'], env)).code, 0);
  const server = await serve(env);
  t.teardown(() => server.stop());
  const listed = JSON.parse(await readFile(path.join(frontend, 'modules.json'), 'utf8')) as {
    modules: Array<{ name: string; layer: string; url: string }>;
  };
  const layer = listed.modules.find((entry) => entry.name === 'folder_pages');
  t.is(layer?.url, '/layers/folder_pages/web/index.js');
  t.is(layer?.layer, path.relative(ROOT, path.join(folder, 'folder_pages', 'web', 'index.js')));
  const entry = await fetch(`${server.base}${layer?.url}`);
  t.is(entry.status, 200);
  t.is(entry.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(await entry.text(), ENTRY);
  t.is((await fetch(`${server.base}/layers/folder_pages/web/chart.js`)).status, 200);

  const sync = await ward(['modules', 'sync-frontend'], env);
  t.regex(sync.stdout, /^Unchanged:/, 'sync-frontend writes the same entry');
});
