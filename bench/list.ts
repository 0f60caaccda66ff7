/**
 * `ward modules list --json` with 50 modules (3 official, 47 community in WARD_MODULE_PATHS, all
 * installed) against a bare Node script running the same SELECT with pg, alternating runs in one
 * session; prints the medians and their ratio (target <= 1.5x). This command line takes ward's lean
 * path (src/cli/lean-list.ts: no oclif, no knex), from its bundle, built first if stale. The same
 * command through oclif (`modules:list --json`, which the lean path does not match) is timed too:
 * it is why the lean path exists.
 *
 *   node bench/list.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/config.ts';
import { migrateCore } from '../src/db/migrate.ts';
import { freshBundle } from '../src/server/build-bundle.ts';
import { fiftyModules, median, NODE, ratio, scratchDatabase, timeProcess } from './lib.ts';

const RUNS = 21;

// The lean path runs from its bundle (src/cli/list-entry.ts); a stale one would time the sources.
await freshBundle(ROOT, (reason) => console.error(`building the bundles: ${reason}`));
const db = await scratchDatabase();
const modulesDir = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-list-'));
try {
  await migrateCore(db.knex);
  const names = await fiftyModules(modulesDir);
  await db.knex('core_module').insert(names.map((name) => ({ name, state: 'installed', version: '1.0.0' })));

  const env = { PATH: process.env.PATH, DATABASE_URL: db.url, WARD_MODULE_PATHS: modulesDir };
  const ward = () => timeProcess(path.join(ROOT, 'bin', 'ward'), ['modules', 'list', '--json'], env);
  const oclif = () => timeProcess(path.join(ROOT, 'bin', 'ward'), ['modules:list', '--json'], env);
  const bare = () => timeProcess(NODE, [path.join(ROOT, 'bench', 'list-baseline.mjs')], env);
  await ward();
  await oclif();
  await bare();
  const wardTimes: number[] = [];
  const oclifTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    wardTimes.push(await ward());
    oclifTimes.push(await oclif());
    bareTimes.push(await bare());
  }
  const [w, o, b] = [median(wardTimes), median(oclifTimes), median(bareTimes)];
  console.log(
    `modules list --json, 50 modules: ward ${w.toFixed(0)} ms, bare pg script ${b.toFixed(0)} ms -> ${ratio(w, b)} (target <= 1.5x)`,
  );
  console.log(`  the same command through oclif: ${o.toFixed(0)} ms -> ${ratio(o, b)} of the bare pg script`);
} finally {
  await rm(modulesDir, { recursive: true, force: true });
  await db.drop();
}
