/**
 * Mounting module routes: a module's definition reaches Ward's router with the contract's fields
 * only, so a plain-JavaScript module cannot switch on Ward's own route options; its permissions must
 * be its manifest's; its schemas never meet another module's.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { createServer } from 'node:http';
import type { Knex } from 'knex';
import { loadModuleRoutes } from '../../src/api/mount-modules.ts';
import { compileRoute, type ApiRoute } from '../../src/api/route.ts';
import { compileBody } from '../../src/api/validation.ts';
import { serve } from '../../src/api/respond.ts';
import { requestContext } from '../../src/api/request-context.ts';
import { ajvPerModule } from '../../src/sdk/schema.ts';
import { silentLogger } from '../../src/logger.ts';
import type { DiskModule } from '../../src/planner/types.ts';
import { scratchDir } from '../helpers/cli.ts';

test('a module route that claims public access or an early pass before a password change is still guarded', async (t) => {
  const dir = await scratchDir('ward-mount-');
  const routes = path.join(dir, 'routes.js');
  await writeFile(
    routes,
    `export default () => [{ method: 'GET', path: '/open', permission: null, access: 'public',
       beforePasswordChange: true, handler: async (ctx) => { ctx.body = {}; } }];`,
  );
  const module = {
    name: 'sneaky',
    depends: [],
    routes,
    manifest: { permissions: [] },
  } as unknown as DiskModule;
  const loaded = await loadModuleRoutes([{ module, version: '1.0.0' }], {
    knex: {} as Knex,
    logger: silentLogger,
    storageDir: dir,
  });
  t.deepEqual(loaded.failures, []);
  const [route] = loaded.routes;
  t.is(route?.fullPath, '/api/v1/sneaky/open');
  t.false(route !== undefined && 'access' in route && route.access !== undefined, 'no access option');
  t.false(
    route !== undefined && 'beforePasswordChange' in route && route.beforePasswordChange !== undefined,
    'no early pass',
  );
});

test('a module whose route names a permission its manifest does not declare is not mounted', async (t) => {
  const dir = await scratchDir('ward-mount-');
  const routes = path.join(dir, 'routes.js');
  await writeFile(
    routes,
    `export default () => [{ method: 'GET', path: '/jobs', permission: 'typo.jobs.read',
       handler: async (ctx) => { ctx.body = {}; } }];`,
  );
  const module = {
    name: 'typo',
    depends: [],
    routes,
    manifest: { permissions: ['typo.job.read'] },
  } as unknown as DiskModule;
  const loaded = await loadModuleRoutes([{ module, version: '1.0.0' }], {
    knex: {} as Knex,
    logger: silentLogger,
    storageDir: dir,
  });
  t.deepEqual(loaded.routes, []);
  t.deepEqual(loaded.failures, [
    {
      module: 'typo',
      message: `${routes}: route 0 (GET /jobs): permission typo.jobs.read is not declared in the manifest's permissions (typo.job.read); declare it there or fix the name`,
    },
  ]);
});

test('two modules may compile schemas with the same $id, through the sdk and as route bodies', async (t) => {
  const dir = await scratchDir('ward-mount-');
  const modules = await Promise.all(
    ['first', 'second'].map(async (name) => {
      const routes = path.join(dir, `${name}.js`);
      await writeFile(
        routes,
        `export default ({ sdk }) => {
           const check = sdk.validation.compile({ $id: 'reading', type: 'string', const: '${name}' });
           return [{ method: 'POST', path: '/readings', permission: null,
             body: { $id: 'reading-body', type: 'object' },
             handler: async (ctx) => { ctx.body = { ok: check('${name}') }; } }];
         };`,
      );
      return {
        module: { name, depends: [], routes, manifest: {} } as unknown as DiskModule,
        version: '1.0.0',
      };
    }),
  );
  const loaded = await loadModuleRoutes(modules, { knex: {} as Knex, logger: silentLogger, storageDir: dir });
  t.deepEqual(loaded.failures, []);
  const deps = { auth: null, ajvFor: ajvPerModule(), jsonLimit: 1024 };
  for (const route of loaded.routes) t.notThrows(() => compileRoute(route, deps), route.fullPath);
  // Route bodies compile on their first call, on the ajv the router gives their module.
  for (const route of loaded.routes)
    t.notThrows(() => compileBody(deps.ajvFor(route.module), route.body as object), route.fullPath);
  for (const route of loaded.routes) {
    const ctx = { body: undefined } as { body: unknown };
    await route.handler(ctx as never);
    t.deepEqual(ctx.body, { ok: true }, `${route.module} checks with its own schema`);
  }
});

/** One route of module `lab` taking `body`, open to anyone, served on a server of its own. */
async function serveBodyRoute(t: ExecutionContext, body: object): Promise<string> {
  const route: ApiRoute = {
    method: 'POST',
    path: '/readings',
    fullPath: '/api/v1/lab/readings',
    module: 'lab',
    access: 'public',
    permission: null,
    body,
    handler: async (ctx) => {
      ctx.body = { ok: true };
    },
  };
  const context = requestContext({ logger: silentLogger, observe: null });
  const handler = compileRoute(route, { auth: null, ajvFor: ajvPerModule(), jsonLimit: 1024 });
  const listener = serve(
    (ctx, next) => context(ctx, () => handler(ctx, next)),
    { proxy: false },
    () => {},
  );
  const server = createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${route.fullPath}`;
}

const post = (url: string, value: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });

test("a module's body schema that breaks the meta-schema is refused when its route is mounted, in ajv's words", (t) => {
  const route = {
    method: 'POST',
    path: '/readings',
    fullPath: '/api/v1/lab/readings',
    module: 'lab',
    permission: null,
    body: { type: 'object', required: 'name' },
    handler: async () => undefined,
  } satisfies ApiRoute;
  t.throws(() => compileRoute(route, { auth: null, ajvFor: ajvPerModule(), jsonLimit: 1024 }), {
    message: 'schema is invalid: data/required must be array',
  });
});

test("a module's body schema is compiled on its route's first call, and checks every call's body", async (t) => {
  const url = await serveBodyRoute(t, {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' } },
  });
  const refused = await post(url, { name: 1 });
  t.is(refused.status, 422);
  t.is(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_body');
  const accepted = await post(url, { name: 'pulse' });
  t.is(accepted.status, 200);
  t.deepEqual(await accepted.json(), { ok: true });
});

test('a module body schema the meta-schema passes but ajv cannot compile answers 503 naming the route and why', async (t) => {
  const url = await serveBodyRoute(t, { type: 'string', format: 'no-such-format' });
  for (const attempt of [1, 2]) {
    const answer = await post(url, 'pulse');
    t.is(answer.status, 503, `call ${attempt}`);
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    t.is(error.code, 'module_unavailable');
    t.regex(
      error.message,
      /^the body schema of POST \/api\/v1\/lab\/readings \(module lab\) does not compile: unknown format "no-such-format"/,
    );
  }
});
