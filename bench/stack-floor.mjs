// A second baseline for bench/restart.ts: what any backend on Ward's stack pays before its first
// answer (Koa, knex on pg, pino; one pooled connection, one query at start, one per health check),
// with none of Ward's own work. It separates the cost of the chosen libraries from Ward's.
import Koa from 'koa';
import knexFactory from 'knex';
import pino from 'pino';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
const knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 10 } });
await knex('core_module').select('name', 'state', 'version');
const app = new Koa();
app.use(async (ctx) => {
  await knex.raw('select 1');
  ctx.body = { status: 'healthy' };
});
app.listen(Number(process.env.PORT));
logger.info('listening');
