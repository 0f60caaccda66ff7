/**
 * Runs every benchmark in turn (`npm run bench`), each in its own process so that one's memory
 * and warm caches do not colour the next.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../src/config.ts';

const BENCHMARKS = [
  'planner',
  'list',
  'restart',
  'permission',
  'sign-in-flood',
  'seeds',
  'backup',
  'import',
  'audit-query',
  'validators',
  'patient-search',
  'frontend-size',
  'page-load',
];

let failed = 0;
for (const name of BENCHMARKS) {
  const file = path.join(ROOT, 'bench', `${name}.ts`);
  const run = spawnSync(process.execPath, [file], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed += 1;
    console.error(`bench/${name}.ts exited ${run.status ?? run.signal}`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
