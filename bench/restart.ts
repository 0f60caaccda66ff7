/**
 * Restart cost: from spawning the backend (`src/backend-main.ts`, as `ward serve` does; 50 installed modules, nothing pending) to its first
 * `GET /health` 200, against spawning a bare Koa process to its first 200, alternating in one
 * session; prints the medians and their ratio (target <= 2x). A third process, bench/stack-floor.mjs
 * (Koa + knex + pg + pino, one query, nothing of Ward's), shows how much of the ratio the stack
 * itself costs and how much is Ward's own start-up work.
 *
 *   node bench/restart.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from '../src/config.ts';
import { migrateCore } from '../src/db/migrate.ts';
import { COMPILE_CACHE, fiftyModules, freePort, median, NODE, ratio, scratchDatabase } from './lib.ts';

const RUNS = 15;

/** Milliseconds from spawn to the first 200 from /health; then stops the process and waits. */
async function startToHealthy(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, args, {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', process.env.BENCH_DEBUG ? 'inherit' : 'ignore'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const db = await scratchDatabase();
const modulesDir = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-restart-'));
const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-storage-'));
try {
  await migrateCore(db.knex);
  const names = await fiftyModules(modulesDir);
  // Installed for real by the warm-up start below; the measured starts then have an empty plan.
  await db.knex('core_module').insert(names.map((name) => ({ name, state: 'to_install' })));
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    WARD_MODULE_PATHS: modulesDir,
    WARD_STORAGE_DIR: storage,
    LOG_LEVEL: 'warn',
  };
  // What `ward serve` (and a container) starts: the backend entry point, on the pinned Node.
  const ward = () =>
    startToHealthy(NODE, [path.join(ROOT, 'src', 'backend-main.ts')], {
      ...env,
      NODE_COMPILE_CACHE: COMPILE_CACHE,
    });
  const koa = () => startToHealthy(NODE, [path.join(ROOT, 'bench', 'koa-baseline.mjs')], env);
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
  const wardTimes: number[] = [];
  const koaTimes: number[] = [];
  const floorTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    wardTimes.push(await ward());
    koaTimes.push(await koa());
    floorTimes.push(await floor());
  }
  const [w, k, f] = [median(wardTimes), median(koaTimes), median(floorTimes)];
  console.log(
    `restart to /health 200, 50 installed modules: ward ${w.toFixed(0)} ms, bare Koa ${k.toFixed(0)} ms -> ${ratio(w, k)} (target <= 2x)`,
  );
  console.log(
    `  the stack alone (Koa + knex + pg + pino, one query): ${f.toFixed(0)} ms -> ${ratio(f, k)} of bare Koa; ward is ${ratio(w, f)} of it`,
  );
} finally {
  await rm(modulesDir, { recursive: true, force: true });
  await rm(storage, { recursive: true, force: true });
  await db.drop();
}
