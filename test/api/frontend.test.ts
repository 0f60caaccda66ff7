/**
 * The web frontend on the API's origin: the built shell with its history fallback, modules.json,
 * and the layer of each installed module under /layers/ — and nothing else of the Ward folder or of
 * a module's folder, whatever the path says.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import {
  contentSecurityPolicy,
  frontendTarget,
  inLayer,
  inlineScriptHashes,
} from '../../src/api/frontend.ts';
import { frontendModules, layerInModule, layerUrl } from '../../src/manifests/frontend-layers.ts';
import type { Inventory, ModuleRow } from '../../src/planner/types.ts';
import { call, installedDatabase, startApp } from '../helpers/app.ts';
import { scratchDir } from '../helpers/cli.ts';

/** intake (test/fixtures/modules/auth) names the folder `frontend` as its layer: its index.js is the entry. */
const INTAKE_LAYER = 'test/fixtures/modules/auth/intake/frontend/index.js';
const INTAKE_URL = '/layers/intake/frontend/index.js';
const INDEX = '<!doctype html><title>Ward</title><div id="app"></div>';
/** The built shell's form: an inline import map, then the shell's module script by its file. */
const MAPPED = (imports: object) =>
  '<!doctype html><title>Ward</title>\n<script type="importmap">\n' +
  JSON.stringify({ imports }, null, 2) +
  '\n</script>\n<script type="module" crossorigin src="/assets/index-AbC123.js"></script>\n<div id="app"></div>';

/** The import map's text as served, hashed the way a browser checks it against script-src. */
function servedMapHash(html: string): string {
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (map === undefined) throw new Error('the served page has no import map');
  return `'sha256-${createHash('sha256').update(map).digest('base64')}'`;
}

async function world(
  t: ExecutionContext,
  options: { listed?: object | null; built?: boolean; index?: string } = {},
) {
  const dist = await scratchDir('ward-dist-');
  if (options.built !== false) {
    await mkdir(path.join(dist, 'assets'));
    await writeFile(path.join(dist, 'index.html'), options.index ?? INDEX);
    await writeFile(path.join(dist, 'assets', 'index-AbC123.js'), 'export {};\n');
    await writeFile(path.join(dist, 'assets', 'index-AbC123.css'), 'body{}\n');
    await mkdir(path.join(dist, '.vite'));
    await writeFile(path.join(dist, '.vite', 'manifest.json'), '{}');
  }
  const frontendDir = await scratchDir('ward-frontend-');
  const listed =
    options.listed === undefined
      ? { modules: [{ name: 'intake', version: '1.0.0', layer: INTAKE_LAYER, url: INTAKE_URL }] }
      : options.listed;
  if (listed !== null) await writeFile(path.join(frontendDir, 'modules.json'), JSON.stringify(listed));
  const { knex } = await installedDatabase(t);
  const { base } = await startApp(t, knex, { overrides: { frontendDist: dist, frontendDir } });
  return { base, dist, frontendDir };
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

test('the shell is served with a Content-Security-Policy whose script hash is its import map', async (t) => {
  const { base } = await world(t, { index: MAPPED({ preact: '/assets/shared-preact-X1.js' }) });
  const answer = await call(base, 'GET', '/patients');
  t.is(answer.status, 200);
  t.is(
    answer.headers.get('content-security-policy'),
    `default-src 'self'; script-src 'self' ${servedMapHash(answer.text)}; style-src 'self'; ` +
      "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
      "form-action 'self'; frame-ancestors 'none'",
  );
  t.is(answer.headers.get('referrer-policy'), 'no-referrer');
  t.is(answer.headers.get('x-content-type-options'), 'nosniff');
});

test('a rebuilt shell gets the hash of its new import map, on the next request', async (t) => {
  const { base, dist } = await world(t, { index: MAPPED({ preact: '/assets/shared-preact-X1.js' }) });
  const before = await call(base, 'GET', '/');
  await writeFile(path.join(dist, 'index.html'), MAPPED({ preact: '/assets/shared-preact-Y22.js' }));
  const after = await call(base, 'GET', '/');
  t.regex(after.text, /shared-preact-Y22/);
  const policy = after.headers.get('content-security-policy') ?? '';
  t.true(policy.includes(servedMapHash(after.text)), policy);
  t.false(policy.includes(servedMapHash(before.text)), policy);
});

test('every static answer forbids type sniffing and sending the page address as Referer', async (t) => {
  const { base } = await world(t);
  for (const pathname of ['/', '/assets/index-AbC123.js', '/modules.json', INTAKE_URL]) {
    const answer = await call(base, 'GET', pathname);
    t.is(answer.status, 200, pathname);
    t.is(answer.headers.get('x-content-type-options'), 'nosniff', pathname);
    t.is(answer.headers.get('referrer-policy'), 'no-referrer', pathname);
  }
  t.is((await call(base, 'GET', '/assets/index-AbC123.js')).headers.get('content-security-policy'), null);
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

test('/modules.json is the file the backend and sync-frontend write, revalidated at each use', async (t) => {
  const { base } = await world(t);
  const answer = await call(base, 'GET', '/modules.json');
  t.is(answer.status, 200);
  t.is(answer.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(answer.headers.get('cache-control'), 'no-cache');
  t.like(answer.body, { modules: [{ name: 'intake', layer: INTAKE_LAYER, url: INTAKE_URL }] });
});

test('without modules.json, /modules.json is a 404 that says to run sync-frontend', async (t) => {
  const { base, frontendDir } = await world(t, { listed: null });
  const answer = await call(base, 'GET', '/modules.json');
  t.is(answer.status, 404);
  const { error } = answer.body as { error: { message: string; hint: string } };
  t.is(
    error.message,
    'the list of module pages (modules.json) does not exist on the server, so no module has pages yet',
  );
  t.false(error.message.includes(frontendDir), 'no server path in an answer anyone can read');
  t.is(
    error.hint,
    'the backend writes it at start: check its log for why it could not, or run `ward modules sync-frontend` on the server',
  );
});

test('the layer of an installed module is served under /layers/ as JavaScript, revalidated at each use', async (t) => {
  const { base } = await world(t);
  const answer = await call(base, 'GET', INTAKE_URL);
  t.is(answer.status, 200);
  t.is(answer.text, 'export default {};\n');
  t.is(answer.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(answer.headers.get('cache-control'), 'no-cache');
});

test('no file outside the layer folders is reachable: module code, Ward code, configuration', async (t) => {
  const { base } = await world(t);
  for (const pathname of [
    `/${INTAKE_LAYER}`,
    '/layers/intake/routes.ts',
    '/layers/intake/manifest.json',
    '/layers/intake/frontend',
    '/layers/patients/frontend/index.js',
    '/layers/intake',
    '/layers',
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

test('a layer is served whatever modules.json lists: it names what the shell loads, not what may be', async (t) => {
  const unlisted = await world(t, { listed: { modules: [] } });
  t.is((await call(unlisted.base, 'GET', INTAKE_URL)).status, 200);
  const widened = await world(t, {
    listed: { modules: [{ name: 'intake', version: '1.0.0', layer: 'src', url: '/layers/intake/..' }] },
  });
  t.is((await call(widened.base, 'GET', '/src/config.ts')).status, 404);
  t.is((await call(widened.base, 'GET', '/layers/intake/routes.ts')).status, 404);
});

test('"..", its percent-encoded form and hidden files are refused with 400, naming why', async (t) => {
  const { base } = await world(t);
  for (const pathname of [
    `${INTAKE_URL}/../routes.ts`,
    `${INTAKE_URL}/%2e%2e/routes.ts`,
    `${INTAKE_URL}/%2E%2E/%2E%2E/manifest.json`,
  ]) {
    const answer = await rawGet(base, pathname);
    t.is(answer.status, 400, pathname);
    t.regex(answer.type, /application\/json/);
    t.is(JSON.parse(answer.text).error.message, 'the path holds a "." or ".." segment');
  }
  const encodedSlash = await rawGet(base, `${INTAKE_URL}/..%2froutes.ts`);
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
  t.is(error.message, 'the web frontend is not built: its index.html is missing on the server');
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
  t.deepEqual(frontendTarget('/layers/lab/web/a%20b.js'), {
    kind: 'layer',
    module: 'lab',
    file: 'web/a b.js',
  });
  t.deepEqual(frontendTarget('/layers'), { kind: 'layer', module: '', file: '' });
  t.deepEqual(frontendTarget('/a%20b//c'), { kind: 'path', segments: ['a b', 'c'] });
  t.like(frontendTarget('/%E0%A4%A'), { kind: 'refused' });
  t.like(frontendTarget('/a/%00'), { kind: 'refused' });
});

test('only inline scripts are hashed, with line endings as the browser parses them', (t) => {
  const map = '{"imports":{"preact":"/assets/p.js"}}';
  const hash = "'sha256-EkyXoqCQC2utMMTyvgF4cCmqvLw7/n3cw15fh5BVqMI='";
  t.deepEqual(
    inlineScriptHashes(`<script type="importmap">${map}</script><script type="module" src="/a.js"></script>`),
    [hash],
  );
  t.deepEqual(inlineScriptHashes('<SCRIPT type="importmap">\r\n{"imports":{}}\r\n</SCRIPT>'), [
    "'sha256-ffC2AD47+TTlsBxC1I7uibsU5L2bw5CRqg3hXMGumqs='",
  ]);
  t.deepEqual(inlineScriptHashes(INDEX), []);
  t.regex(contentSecurityPolicy(INDEX), /script-src 'self'; /);
});

test('a layer serves the files beside its entry and under its folder, or only its entry in the module folder', (t) => {
  t.true(inLayer('web/charts/line.js', 'web/index.js'));
  t.false(inLayer('web', 'web/index.js'));
  t.false(inLayer('routes.ts', 'web/index.js'));
  t.true(inLayer('frontend/chart.js', 'frontend/index.js'));
  t.false(inLayer('hooks.ts', 'frontend/index.js'));
  t.true(inLayer('index.js', 'index.js'));
  t.false(inLayer('routes.js', 'index.js'));
});

test('modules.json gives each layer its path from the Ward folder and a URL that reaches it anywhere', (t) => {
  t.is(layerInModule('./web/'), 'web');
  t.is(layerInModule('web\\index.js'), 'web/index.js');
  t.is(layerUrl('lab', './web/index.js'), '/layers/lab/web/index.js');
  t.is(layerUrl('lab', 'my pages'), '/layers/lab/my%20pages');
  const modules = new Map([
    ['outside', { name: 'outside', version: '1.0.0', dir: '/srv/extra/outside', frontend: 'web/app.js' }],
    ['inside', { name: 'inside', version: '2.0.0', dir: '/srv/ward/modules/inside', frontend: 'index.js' }],
  ]);
  const rows = [
    { name: 'outside', state: 'installed', version: '1.0.0' },
    { name: 'inside', state: 'to_upgrade', version: '1.5.0' },
  ];
  t.deepEqual(
    frontendModules({ modules } as unknown as Inventory, rows as unknown as ModuleRow[], '/srv/ward'),
    {
      modules: [
        {
          name: 'inside',
          version: '1.5.0',
          layer: 'modules/inside/index.js',
          url: '/layers/inside/index.js',
        },
        {
          name: 'outside',
          version: '1.0.0',
          layer: '../extra/outside/web/app.js',
          url: '/layers/outside/web/app.js',
        },
      ],
    },
  );
});
