/**
 * The web frontend on the API's origin: the built shell with its history fallback, modules.json,
 * and the layers modules.json lists — and nothing else of the Ward folder, whatever the path says.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { frontendTarget, inLayer, servableLayers } from '../../src/api/frontend.ts';
import { call, installedDatabase, startApp } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';

/** intake (test/fixtures/modules/auth) ships the folder `frontend` as its layer. */
const INTAKE_LAYER = 'test/fixtures/modules/auth/intake/frontend';
const INDEX = '<!doctype html><title>Ward</title><div id="app"></div>';

async function world(t: ExecutionContext, options: { listed?: object | null; built?: boolean } = {}) {
  const dist = await scratchDir('ward-dist-');
  if (options.built !== false) {
    await mkdir(path.join(dist, 'assets'));
    await writeFile(path.join(dist, 'index.html'), INDEX);
    await writeFile(path.join(dist, 'assets', 'index-AbC123.js'), 'export {};\n');
    await writeFile(path.join(dist, 'assets', 'index-AbC123.css'), 'body{}\n');
    await mkdir(path.join(dist, '.vite'));
    await writeFile(path.join(dist, '.vite', 'manifest.json'), '{}');
  }
  const frontendDir = await scratchDir('ward-frontend-');
  const listed =
    options.listed === undefined
      ? { modules: [{ name: 'intake', version: '1.0.0', layer: INTAKE_LAYER }] }
      : options.listed;
  if (listed !== null) await writeFile(path.join(frontendDir, 'modules.json'), JSON.stringify(listed));
  const { knex } = await installedDatabase(t);
  const { base } = await startApp(t, knex, { overrides: { frontendDist: dist, frontendDir } });
  return { base, frontendDir };
}

/**
 * A GET with the path and headers sent exactly as given: fetch would resolve `..` before sending,
 * and adds `Cache-Control: no-cache` to a conditional request.
 */
function rawGet(
  base: string,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; type: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname, port, path: rawPath, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text, type: response.headers['content-type'] ?? '' }),
      );
    });
    request.on('error', reject);
  });
}

test('/ and any path that is not a file answer the shell, revalidated at each use', async (t) => {
  const { base } = await world(t);
  for (const pathname of ['/', '/patients', '/patients/12/edit']) {
    const answer = await call(base, 'GET', pathname);
    t.is(answer.status, 200, pathname);
    t.is(answer.text, INDEX);
    t.is(answer.headers.get('content-type'), 'text/html; charset=utf-8');
    t.is(answer.headers.get('cache-control'), 'no-cache');
    t.is(answer.headers.get('x-frame-options'), 'DENY');
  }
});

test('the API keeps its own answers: unknown /api paths are JSON 404s, never the shell', async (t) => {
  const { base } = await world(t);
  const unknown = await call(base, 'GET', '/api/v1/no-such-route');
  t.is(unknown.status, 404);
  t.regex(unknown.headers.get('content-type') ?? '', /application\/json/);
  t.notRegex(unknown.text, /doctype/);
  const health = await call(base, 'GET', '/health');
  t.is(health.status, 200);
  t.like(health.body, { status: 'healthy' });
});

test('hashed assets are cached for good, with their content type; a known ETag gets 304', async (t) => {
  const { base } = await world(t);
  const script = await call(base, 'GET', '/assets/index-AbC123.js');
  t.is(script.status, 200);
  t.is(script.text, 'export {};\n');
  t.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const style = await call(base, 'GET', '/assets/index-AbC123.css');
  t.is(style.headers.get('content-type'), 'text/css; charset=utf-8');
  const etag = script.headers.get('etag') ?? '';
  const again = await rawGet(base, '/assets/index-AbC123.js', { 'if-none-match': etag });
  t.is(again.status, 304);
  t.is(again.text, '');
});

test('a missing file is a JSON 404, not the shell', async (t) => {
  const { base } = await world(t);
  const answer = await call(base, 'GET', '/assets/index-gone.js');
  t.is(answer.status, 404);
  t.like(answer.body, { error: { code: 'not_found', message: 'no file at /assets/index-gone.js' } });
});

test('/modules.json is the file sync-frontend writes, revalidated at each use', async (t) => {
  const { base } = await world(t);
  const answer = await call(base, 'GET', '/modules.json');
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(answer.headers.get('cache-control'), 'no-cache');
  t.like(answer.body, { modules: [{ name: 'intake', layer: INTAKE_LAYER }] });
});

test('without modules.json, /modules.json is a 404 that says to run sync-frontend', async (t) => {
  const { base, frontendDir } = await world(t, { listed: null });
  const answer = await call(base, 'GET', '/modules.json');
  t.is(answer.status, 404);
  const { error } = answer.body as { error: { message: string; hint: string } };
  t.is(error.message, `${path.join(frontendDir, 'modules.json')} does not exist, so no module has pages yet`);
  t.is(error.hint, 'run `ward modules sync-frontend` on the server');
});

test('a listed layer of an installed module is served as JavaScript, revalidated at each use', async (t) => {
  const { base } = await world(t);
  const answer = await call(base, 'GET', `/${INTAKE_LAYER}/index.js`);
  t.is(answer.status, 200);
  t.is(answer.text, 'export default {};\n');
  t.is(answer.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(answer.headers.get('cache-control'), 'no-cache');
});

test('no file outside the listed layer folders is reachable: module code, Ward code, configuration', async (t) => {
  const { base } = await world(t);
  for (const pathname of [
    '/test/fixtures/modules/auth/intake/routes.ts',
    '/test/fixtures/modules/auth/intake/manifest.json',
    '/package.json',
    '/src/config.ts',
    '/modules/patients/routes.ts',
  ]) {
    const answer = await call(base, 'GET', pathname);
    t.is(answer.status, 404, pathname);
    t.like(answer.body, { error: { code: 'not_found' } });
  }
});

test('a layer is not served when modules.json does not list it, or lists another path for it', async (t) => {
  const unlisted = await world(t, { listed: { modules: [] } });
  t.is((await call(unlisted.base, 'GET', `/${INTAKE_LAYER}/index.js`)).status, 404);
  const widened = await world(t, {
    listed: { modules: [{ name: 'intake', version: '1.0.0', layer: 'src' }] },
  });
  t.is((await call(widened.base, 'GET', '/src/config.ts')).status, 404);
  t.is((await call(widened.base, 'GET', `/${INTAKE_LAYER}/index.js`)).status, 404);
});

test('"..", its percent-encoded form and hidden files are refused with 400, naming why', async (t) => {
  const { base } = await world(t);
  for (const pathname of [
    `/${INTAKE_LAYER}/../routes.ts`,
    `/${INTAKE_LAYER}/%2e%2e/routes.ts`,
    `/${INTAKE_LAYER}/%2E%2E/%2E%2E/manifest.json`,
  ]) {
    const answer = await rawGet(base, pathname);
    t.is(answer.status, 400, pathname);
    t.regex(answer.type, /application\/json/);
    t.is(JSON.parse(answer.text).error.message, 'the path holds a "." or ".." segment');
  }
  const encodedSlash = await rawGet(base, `/${INTAKE_LAYER}/..%2froutes.ts`);
  t.is(encodedSlash.status, 400);
  t.is(JSON.parse(encodedSlash.text).error.message, 'a path segment holds a separator or NUL');
  const hidden = await rawGet(base, '/.vite/manifest.json');
  t.is(hidden.status, 400);
  t.is(JSON.parse(hidden.text).error.message, 'hidden files are not served');
});

test('without a build, the shell paths answer 404 saying how to build it', async (t) => {
  const { base } = await world(t, { built: false });
  const answer = await call(base, 'GET', '/patients');
  t.is(answer.status, 404);
  const { error } = answer.body as { error: { message: string; hint: string } };
  t.regex(error.message, /^the web frontend is not built: .*index\.html is missing$/);
  t.is(error.hint, 'build it with `npm run build:frontend` (`npm install` does it too), then reload');
});

test('writes to frontend paths are not served', async (t) => {
  const { base } = await world(t);
  t.is((await call(base, 'POST', '/', { json: {} })).status, 404);
  t.is((await call(base, 'PUT', '/modules.json', { json: {} })).status, 404);
});

test('frontendTarget leaves /api and /health to the API and decodes each segment on its own', (t) => {
  t.deepEqual(frontendTarget('/api/v1/me'), { kind: 'pass' });
  t.deepEqual(frontendTarget('/health'), { kind: 'pass' });
  t.deepEqual(frontendTarget('/apiary'), { kind: 'path', segments: ['apiary'] });
  t.deepEqual(frontendTarget('/modules.json'), { kind: 'modules-json' });
  t.deepEqual(frontendTarget('/a%20b//c'), { kind: 'path', segments: ['a b', 'c'] });
  t.like(frontendTarget('/%E0%A4%A'), { kind: 'refused' });
  t.like(frontendTarget('/a/%00'), { kind: 'refused' });
});

test('a layer whose entry sits in the module folder serves only that entry', (t) => {
  const installed = new Map([
    ['lab', { layer: 'modules/lab/index.js', dir: 'modules/lab' }],
    ['vitals', { layer: 'modules/vitals/web', dir: 'modules/vitals' }],
  ]);
  const layers = servableLayers(
    [
      { name: 'lab', layer: 'modules/lab/index.js' },
      { name: 'vitals', layer: 'modules/vitals/web' },
      { name: 'ghost', layer: 'modules/ghost/frontend/index.js' },
    ],
    installed,
    (layer) => layer === 'modules/vitals/web',
  );
  t.deepEqual(layers, [
    { dir: 'modules/lab', only: 'modules/lab/index.js' },
    { dir: 'modules/vitals/web', only: null },
  ]);
  t.true(inLayer('modules/lab/index.js', layers));
  t.false(inLayer('modules/lab/routes.js', layers));
  t.true(inLayer('modules/vitals/web/charts/line.js', layers));
  t.false(inLayer('modules/vitals/web', layers));
  t.false(inLayer('modules/ghost/frontend/index.js', layers));
});
