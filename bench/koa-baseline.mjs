// The baseline for bench/restart.ts and bench/permission.ts: a bare Koa process with one route.
// BENCH_SPIN_MICROS=<n> makes it busy-wait n µs per request (bench/permission.ts --spin): a
// server that does that much more JavaScript per request, and nothing else different.
import { performance } from 'node:perf_hooks';
import Koa from 'koa';

const spinMs = Number(process.env.BENCH_SPIN_MICROS ?? 0) / 1000;

/** Burns the CPU for `ms` milliseconds. */
function spin(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const app = new Koa();
app.use((ctx) => {
  if (spinMs > 0) spin(spinMs);
  ctx.body = { status: 'healthy' };
});
app.listen(Number(process.env.PORT));
