// The baseline for bench/restart.ts and bench/permission.ts: a bare Koa process with one route.
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  ctx.body = { status: 'healthy' };
});
app.listen(Number(process.env.PORT));
