/**
 * The Koa application. Only routes that need nothing but the database live here so far; the
 * module routers and auth are mounted by the running-service layer.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import { VERSION } from '../version.ts';

export function createApp(knex: Knex): Koa {
  const app = new Koa();
  const router = new Router();
  router.get('/health', async (ctx) => {
    try {
      await knex.raw('select 1');
      ctx.body = { status: 'healthy', version: VERSION };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unhealthy', version: VERSION, reason: 'database unreachable' };
    }
  });
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}
