/**
 * Mounting module routes: a module's definition reaches Ward's router with the contract's fields
 * only, so a plain-JavaScript module cannot switch on Ward's own route options; its permissions must
 * be its manifest's; its schemas never meet another module's.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { loadModuleRoutes } from '../../src/api/mount-modules.ts';
import { compileRoute } from '../../src/api/route.ts';
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
  for (const route of loaded.routes) {
    const ctx = { body: undefined } as { body: unknown };
    await route.handler(ctx as never);
    t.deepEqual(ctx.body, { ok: true }, `${route.module} checks with its own schema`);
  }
});
