/**
 * An experiment, not a shipped path: how fast a backend's cold start would be if its start-up code
 * were bundled instead of some 390 files resolved and loaded one by one. It bundles
 * src/server/backend-main.ts with rolldown (Vite's bundler) twice: everything into
 * .bundled-backend/, and Ward's own code alone (the packages it imports loaded from node_modules
 * as now) into .bundled-own/. Both are one level below the Ward folder, as src/ is, so that paths
 * Ward computes from its own files still hold. It then alternates a bare Koa start, the backend
 * from its sources and the two bundles, each to its first 200 from /health, with 50 installed
 * modules and nothing to change. The bundles are removed when it ends.
 *
 *   node bench/bundled-start.ts
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'rolldown';
import { ROOT } from '../src/config.ts';
import { COMPILE_CACHE, fiftyModuleDatabase, median, NODE, ratio, startToHealthy } from './lib.ts';

const RUNS = 15;
const ALL = path.join(ROOT, '.bundled-backend');
const OWN = path.join(ROOT, '.bundled-own');

/** Bundles the backend's entry point into `dir`; `external` also leaves those imports as they are. */
async function bundle(dir: string, external: RegExp[]): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await build({
    input: path.join(ROOT, 'src', 'server', 'backend-main.ts'),
    platform: 'node',
    // Loaded at run time from their own folders, as the backend loads them from its sources.
    external: [/\/modules\//, /\/generated\//, ...external],
    output: { dir, format: 'esm', entryFileNames: 'backend-main.mjs' },
    logLevel: 'silent',
  });
  return path.join(dir, 'backend-main.mjs');
}

const bundledAll = await bundle(ALL, []);
// A bare specifier (a package, or a `node:` module) is not Ward's own code.
const bundledOwn = await bundle(OWN, [/^[a-z@][^:]*$/, /^node:/]);

const { env, remove } = await fiftyModuleDatabase();
try {
  const withCache = { ...env, NODE_COMPILE_CACHE: COMPILE_CACHE };
  const sources = () =>
    startToHealthy(NODE, [path.join(ROOT, 'src', 'server', 'backend-main.ts')], withCache);
  const all = () => startToHealthy(NODE, [bundledAll], withCache);
  const own = () => startToHealthy(NODE, [bundledOwn], withCache);
  const koa = () => startToHealthy(NODE, [path.join(ROOT, 'bench', 'koa-baseline.mjs')], env);
  // The first start installs the modules; each then runs once to fill the compile cache.
  await sources();
  await all();
  await own();
  await koa();
  const times: [number[], number[], number[], number[]] = [[], [], [], []];
  for (let run = 0; run < RUNS; run++) {
    times[0].push(await koa());
    times[1].push(await sources());
    times[2].push(await own());
    times[3].push(await all());
  }
  const [k, s, o, b] = times.map(median) as [number, number, number, number];
  console.log(`cold start to /health 200, 50 installed modules; bare Koa start ${k.toFixed(0)} ms`);
  console.log(`  from the sources: ${s.toFixed(0)} ms -> ${ratio(s, k)} of bare Koa`);
  console.log(`  Ward's own code bundled (experiment): ${o.toFixed(0)} ms -> ${ratio(o, k)} of bare Koa`);
  console.log(`  everything bundled (experiment): ${b.toFixed(0)} ms -> ${ratio(b, k)} of bare Koa`);
} finally {
  await remove();
  // Build output in the Ward folder: left there, the linters would read it as source.
  await rm(ALL, { recursive: true, force: true });
  await rm(OWN, { recursive: true, force: true });
}
