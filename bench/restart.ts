/**
 * Restart cost with 50 installed modules and nothing pending, against a bare Koa process's spawn to
 * its first 200 (target <= 2x), medians of alternating runs in one session:
 *
 * - restart: `ward serve` running, `ward modules restart`'s NOTIFY sent, until a new backend
 *   answers `GET /health` 200. The old backend stops gracefully; the supervisor's warm spare
 *   (src/server/spare.ts) takes over. This is the restart an operator asks for (CLI or HTTP).
 * - cold start: `ward backend`, the container's command, spawned to its first 200: what every
 *   container or Kubernetes restart costs (and a restart when the spare is off or Ward's code
 *   changed). It runs the backend's bundle (src/server/backend-bundle.ts), built first if it is
 *   not the code on disk, as `npm start` does.
 * - the CPU time the cold start and the Koa start used by their first answer: on a loaded machine
 *   the wall times above include waiting for a core and for a busy database; this does not.
 * - bench/stack-floor.mjs (Koa + knex + pg + pino, one query, nothing of Ward's) shows how much of
 *   the cold start the stack itself costs.
 *
 *   node bench/restart.ts
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { ROOT } from '../src/config.ts';
import { requestRestart } from '../src/db/restart-signal.ts';
import { freshBundle } from '../src/server/build-bundle.ts';
import { WARD } from '../test/helpers/cli.ts';
import { serve, type Served } from '../test/helpers/serve.ts';
import { COMPILE_CACHE, fiftyModuleDatabase, freePort, median, NODE, ratio, startToHealthy } from './lib.ts';

const RUNS = 15;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

/**
 * Milliseconds from the restart request to the first 200 from a new backend: the old one answers
 * until it stops listening, so an answer counts only after a request has failed. Throws unless the
 * warm spare took over.
 */
async function restartToHealthy(served: Served, knex: Knex): Promise<number> {
  const takeovers = count(served.output(), /the spare backend takes over/g);
  const started = performance.now();
  await requestRestart(knex);
  let down = false;
  for (;;) {
    const ok = await fetch(`${served.base}/health`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (!ok) down = true;
    else if (down) break;
    await sleep(2);
  }
  const elapsed = performance.now() - started;
  for (let waited = 0; count(served.output(), /the spare backend takes over/g) === takeovers; waited += 20) {
    if (waited > 2_000) throw new Error(`the restart did not use the spare:\n${served.output()}`);
    await sleep(20);
  }
  // The new backend now starts the next spare: let it load before anything else is timed.
  await sleep(1_500);
  return elapsed;
}

await freshBundle(ROOT, (reason) => console.error(`building the backend bundle: ${reason}`));
const { db, env, remove } = await fiftyModuleDatabase();
try {
  // The CPU time each start used by its first answer (bin/ward execs Node: the same process).
  const wardCpu: number[] = [];
  const koaCpu: number[] = [];
  // What a container runs; bin/ward sets the compile cache and Node flags, as there.
  const ward = () => startToHealthy(WARD, ['backend'], env, wardCpu);
  const koa = () => startToHealthy(NODE, [path.join(ROOT, 'bench', 'koa-baseline.mjs')], env, koaCpu);
  // With Ward's compile cache: it separates library cost from Ward's own, on equal terms.
  const floor = () =>
    startToHealthy(NODE, [path.join(ROOT, 'bench', 'stack-floor.mjs')], {
      ...env,
      NODE_COMPILE_CACHE: COMPILE_CACHE,
    });
  await ward();
  const pending = await db
    .knex('core_module')
    .whereNot({ state: 'installed' })
    .count<{ n: string }[]>('* as n');
  if (pending[0]?.n !== '0') throw new Error('the warm-up start did not install every module');
  await koa();
  await floor();
  // A fixed port: every backend the supervisor starts answers at the same address.
  const served = await serve({ ...env, LOG_LEVEL: 'info', PORT: String(await freePort()) }, 'serve');
  await sleep(1_500);
  // Only the timed rounds count.
  wardCpu.length = 0;
  koaCpu.length = 0;
  const restartTimes: number[] = [];
  const coldTimes: number[] = [];
  const koaTimes: number[] = [];
  const floorTimes: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      restartTimes.push(await restartToHealthy(served, db.knex));
      coldTimes.push(await ward());
      koaTimes.push(await koa());
      floorTimes.push(await floor());
    }
  } finally {
    await served.stop();
  }
  const [r, c, k, f] = [restartTimes, coldTimes, koaTimes, floorTimes].map(median) as [
    number,
    number,
    number,
    number,
  ];
  console.log(
    `restart to /health 200 under ward serve, 50 installed modules: ward ${r.toFixed(0)} ms, bare Koa start ${k.toFixed(0)} ms -> ${ratio(r, k)} (target <= 2x)`,
  );
  console.log(
    `  cold start (a container restart, or the spare off): ${c.toFixed(0)} ms -> ${ratio(c, k)} of bare Koa`,
  );
  const [wc, kc] = [median(wardCpu), median(koaCpu)];
  console.log(
    `  CPU to the first answer (what a loaded machine's waits leave out): cold start ${wc.toFixed(0)} ms, bare Koa ${kc.toFixed(0)} ms -> ${ratio(wc, kc)}`,
  );
  console.log(
    `  the stack alone (Koa + knex + pg + pino, one query): ${f.toFixed(0)} ms -> ${ratio(f, k)} of bare Koa; the cold start is ${ratio(c, f)} of it`,
  );
} finally {
  await remove();
}
