/**
 * Where a permission-checked GET's time goes, against the bare Koa hello of bench/permission.ts:
 * each server runs under `--cpu-prof` (sampled every 50 µs) while autocannon loads it as that
 * benchmark does, one after the other; then, per function, the self time per request in each and
 * their difference, largest first. Not a benchmark (`npm run bench` does not run it): the profile
 * behind its figures, so that a change there starts from where the time goes rather than a guess.
 * Self time of a native function (the socket write, the SHA-256) includes the kernel's and the
 * library's work it waits for; `(idle)` is time the server waited for requests.
 *
 *   node bench/permission-profile.ts [--seconds <n>] [--rows <n>]
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ROOT } from '../src/config.ts';
import { WARD } from '../test/helpers/cli.ts';
import { benchBackend, NODE, scratchDatabase, startServer } from './lib.ts';

const SECONDS = numberArgument('--seconds', 8);
const ROWS = numberArgument('--rows', 40);
const CONNECTIONS = 32;

function numberArgument(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${flag} takes a whole number above 0: not ${process.argv[at + 1]}`);
  return value;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Pure: each function's self time in ns per request, keyed by name and place (bundle hashes left out). */
function selfNsPerRequest(profile: CpuProfile, requests: number): Map<string, number> {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    if (frame === undefined) return;
    const file = (frame.url.split('/').pop() ?? '').replace(/-[A-Za-z0-9_-]{8}\.mjs$/, '.mjs');
    const key = `${frame.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${frame.lineNumber}`}`;
    // timeDeltas are µs; ×1000 for ns.
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) * 1000);
  });
  for (const [key, ns] of self) self.set(key, ns / requests);
  return self;
}

/** Loads `url` as bench/permission.ts does, after 2 s of warm-up (profiled too); the requests served in all. */
async function load(url: string, headers: Record<string, string>): Promise<number> {
  const warm = await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const run = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  return warm.requests.total + run.requests.total;
}

/** Runs `command` under the profiler while loading `route`; its self time per request by function. */
async function profiled(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  route: string,
  headers: Record<string, string>,
): Promise<Map<string, number>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ward-profile-'));
  try {
    const options = `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=50`;
    const server = await startServer(command, args, { ...env, NODE_OPTIONS: options }, route, headers);
    let requests: number;
    try {
      requests = await load(server.url, headers);
    } finally {
      // The profile is written as the process exits.
      await server.stop();
    }
    const [file] = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`${command} ${args.join(' ')} wrote no profile`);
    return selfNsPerRequest(JSON.parse(await readFile(path.join(dir, file), 'utf8')) as CpuProfile, requests);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const db = await scratchDatabase();
const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-'));
try {
  const { env, authorization } = await benchBackend(db.url, storage, ['bench_ping']);
  const wardSelf = await profiled(WARD, ['backend'], env, '/api/v1/bench_ping/ping', authorization);
  // koa-baseline.mjs has no SIGTERM handler: killed by the signal, it would write no profile.
  const koaSelf = await profiled(
    NODE,
    [
      '--import',
      'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))',
      path.join(ROOT, 'bench', 'koa-baseline.mjs'),
    ],
    env,
    '/',
    {},
  );
  const busy = (self: Map<string, number>) =>
    [...self].reduce((sum, [key, ns]) => (key === '(idle)' ? sum : sum + ns), 0);
  const [w, k] = [busy(wardSelf), busy(koaSelf)];
  console.log(
    `busy time per request: ward ${(w / 1000).toFixed(1)} µs, bare Koa ${(k / 1000).toFixed(1)} µs -> ${(w / k).toFixed(2)}x`,
  );
  const rows = [...new Set([...wardSelf.keys(), ...koaSelf.keys()])]
    .map((key) => ({ key, ward: wardSelf.get(key) ?? 0, koa: koaSelf.get(key) ?? 0 }))
    .sort((a, b) => b.ward - b.koa - (a.ward - a.koa));
  const ns = (value: number) => value.toFixed(0).padStart(7);
  console.log(
    `${'ward-koa'.padStart(8)} ${'ward'.padStart(7)} ${'koa'.padStart(7)}  self time, ns per request`,
  );
  for (const row of rows.slice(0, ROWS))
    console.log(`${ns(row.ward - row.koa).padStart(8)} ${ns(row.ward)} ${ns(row.koa)}  ${row.key}`);
} finally {
  await rm(storage, { recursive: true, force: true });
  await db.drop();
}
