/**
 * Runs every benchmark in turn (`npm run bench`), each in its own process so that one's memory
 * and warm caches do not colour the next, and writes the lines carrying their figures into the
 * results table of docs/benchmarks.md with the machine they ran on. `npm run bench -- permission
 * backup` runs only those and updates only their rows.
 */
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as prettier from 'prettier';
import { ROOT } from '../src/config.ts';
import { figureLines, machine, writeRows, type Row } from './results.ts';

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

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !BENCHMARKS.includes(name));
if (unknown.length > 0) {
  console.error(`no such benchmark: ${unknown.join(', ')}; choose from ${BENCHMARKS.join(', ')}`);
  process.exit(2);
}

const ran = new Date().toISOString().slice(0, 10);
const host = machine();
const rows: Row[] = [];
let failed = 0;
for (const name of asked.length > 0 ? asked : BENCHMARKS) {
  const file = path.join(ROOT, 'bench', `${name}.ts`);
  const run = spawnSync(process.execPath, [file], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  process.stdout.write(run.stdout);
  if (run.status !== 0) {
    failed += 1;
    console.error(`bench/${name}.ts exited ${run.status ?? run.signal}`);
    continue;
  }
  const lines = figureLines(run.stdout);
  rows.push({
    benchmark: `bench/${name}.ts`,
    result: lines.join('\n') || '(no figure printed)',
    ran,
    machine: host,
  });
}

const docs = path.join(ROOT, 'docs', 'benchmarks.md');
const text = writeRows(await readFile(docs, 'utf8'), rows, BENCHMARKS);
// Laid out as `npm run lint` checks it, so a run leaves the page ready to commit.
const options = (await prettier.resolveConfig(docs)) ?? {};
await writeFile(docs, await prettier.format(text, { ...options, filepath: docs }));
console.log(`results written to docs/benchmarks.md (${rows.length} benchmarks)`);
process.exitCode = failed === 0 ? 0 : 1;
