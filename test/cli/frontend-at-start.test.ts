/**
 * A backend writes modules.json itself, once the reconcile has applied the plan and before it
 * serves: after `npm start` the module pages work without `ward modules sync-frontend`. A module
 * found through WARD_MODULE_PATHS outside the Ward folder gets a layer URL the browser can reach.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import { scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { serve } from '../helpers/serve.ts';

/** A module with a one-file layer in `web/`, beside server-side files, in a folder outside ROOT. */
async function outsideModule(): Promise<string> {
  const paths = await scratchDir('ward-outside-');
  const dir = path.join(paths, 'outside_pages');
  await mkdir(path.join(dir, 'web'), { recursive: true });
  await writeFile(
    path.join(dir, 'manifest.json'),
    JSON.stringify({ name: 'outside_pages', version: '1.0.0', frontend: 'web/index.js' }),
  );
  await writeFile(path.join(dir, 'web', 'index.js'), "export default { sdk: '^1.0.0', routes: [] };\n");
  await writeFile(path.join(dir, 'web', 'chart.js'), 'export const chart = 1;\n');
  await writeFile(path.join(dir, 'secret.js'), 'export const secret = 1;\n');
  return paths;
}

test('a backend started on a fresh frontend folder serves /modules.json listing the installed layers', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const modulePaths = await outsideModule();
  const frontend = path.join(await scratchDir('ward-frontend-'), 'fresh');
  const env = {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: modulePaths,
    WARD_STORAGE_DIR: await scratchDir('ward-storage-'),
    WARD_FRONTEND_DIR: frontend,
  };
  const install = await ward(['modules', 'install', 'outside_pages'], env);
  t.is(install.code, 0, install.stderr);
  const server = await serve(env);
  t.teardown(() => server.stop());
  const layer = `${path.relative(ROOT, path.join(modulePaths, 'outside_pages', 'web', 'index.js'))}`;
  t.true(layer.startsWith('../'));
  const expected = {
    modules: [{ name: 'outside_pages', version: '1.0.0', layer, url: '/layers/outside_pages/web/index.js' }],
  };
  t.deepEqual(JSON.parse(await readFile(path.join(frontend, 'modules.json'), 'utf8')), expected);
  const listed = await fetch(`${server.base}/modules.json`);
  t.is(listed.status, 200);
  t.deepEqual(await listed.json(), expected);

  const entry = await fetch(`${server.base}/layers/outside_pages/web/index.js`);
  t.is(entry.status, 200);
  t.is(entry.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(await entry.text(), "export default { sdk: '^1.0.0', routes: [] };\n");
  t.is((await fetch(`${server.base}/layers/outside_pages/web/chart.js`)).status, 200);
  for (const pathname of ['/layers/outside_pages/secret.js', '/layers/outside_pages/manifest.json'])
    t.is((await fetch(`${server.base}${pathname}`)).status, 404, pathname);
});

test('sync-frontend after the backend wrote modules.json finds it unchanged', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const env = {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: await outsideModule(),
    WARD_STORAGE_DIR: await scratchDir('ward-storage-'),
    WARD_FRONTEND_DIR: await scratchDir('ward-frontend-'),
  };
  t.is((await ward(['modules', 'install', 'outside_pages'], env)).code, 0);
  const server = await serve(env);
  t.teardown(() => server.stop());
  const sync = await ward(['modules', 'sync-frontend'], env);
  t.is(sync.code, 0, sync.stderr);
  t.regex(sync.stdout, /^Unchanged: .*modules\.json \(1 module layer\(s\)\)/);
  t.notRegex(sync.stdout, /Next step/);
});
