/**
 * A permission-checked GET (bearer token → principal → permission → a handler that does no work)
 * on `ward backend`, against a bare Koa hello route, each in its own process, loaded by autocannon
 * from this process on loopback in alternating rounds (so that a change in the machine's load
 * hits both alike); prints the median requests/s and their ratio (target >= 0.8x), and the CPU time
 * each server process spent per request (from /proc/<pid>/stat: a busy machine distorts it less
 * than requests/s, which also depend on how much CPU autocannon and other work leave). With
 * `--metrics`, the backend also records Prometheus metrics (WARD_METRICS_PORT), to see what
 * measuring every request costs. With `--spin <µs>`, a third server joins the rounds: the bare Koa
 * busy-waiting that many µs per request, a server with that much more JavaScript per request and
 * nothing else different; its line shows what the extra JavaScript costs in requests/s on this
 * machine, where autocannon shares the cores, and in CPU per request (which grows by more than the
 * spin: a slower server pays more for each socket write, see docs/benchmarks.md). With
 * `--against <dir>`, the backend of another Ward checkout in `dir` (its `npm ci` done; the same
 * migrations) joins the rounds too, on the same database: a before-and-after of a change in one run.
 *
 * Then the audit trail's cost: a patient read through the patients module's route, which records
 * an audit row before it answers, against the same read through a fixture route that records
 * nothing (bench_read), on the same backend, alternating; prints their ratio (target >= 0.9x).
 *
 *   node bench/permission.ts [--metrics] [--spin <µs>] [--against <dir>]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ROOT } from '../src/config.ts';
import { WARD } from '../test/helpers/cli.ts';
import { benchBackend, median, NODE, ratio, scratchDatabase, startServer } from './lib.ts';

const ROUNDS = 5;
const SECONDS = 3;
const CONNECTIONS = 32;
const METRICS = process.argv.includes('--metrics');
const SPIN = spinArgument(process.argv);
const AGAINST = process.argv.includes('--against')
  ? process.argv[process.argv.indexOf('--against') + 1]
  : undefined;
if (process.argv.includes('--against') && AGAINST === undefined)
  throw new Error('--against takes the folder of another Ward checkout');

/** The µs of `--spin <µs>`, or null without it. */
function spinArgument(argv: readonly string[]): number | null {
  const at = argv.indexOf('--spin');
  if (at === -1) return null;
  const micros = Number(argv[at + 1]);
  if (!Number.isInteger(micros) || micros < 0)
    throw new Error(`--spin takes the µs to busy-wait per request, a whole number: not ${argv[at + 1]}`);
  return micros;
}

/** Linux's clock ticks per second in /proc (USER_HZ), the same on every architecture it runs on. */
const TICKS_PER_SECOND = 100;

/** Seconds of CPU (user and system) that process `pid` has used so far. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

interface Round {
  rps: number;
  /** CPU seconds the server spent per request. */
  cpu: number;
}

/** Requests per second that `url` sustains, with no failed request, and the CPU the server `pid` spent on each. */
async function measure(url: string, headers: Record<string, string>, pid: number): Promise<Round> {
  const before = await cpuSeconds(pid);
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  const cpu = (await cpuSeconds(pid)) - before;
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, cpu: cpu / result.requests.total };
}

const micros = (seconds: number) => `${(seconds * 1e6).toFixed(0)} µs`;

const db = await scratchDatabase();
const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-permission-'));
try {
  const { env, authorization } = await benchBackend(
    db.url,
    storage,
    ['bench_ping', 'bench_read'],
    METRICS ? { WARD_METRICS_PORT: '0' } : {},
  );
  // Each server is stopped at the end, also when a later one fails to start.
  const started: { stop: () => Promise<void> }[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    started.push(server);
    return server;
  };
  try {
    const wardServer = await start(WARD, ['backend'], env, '/api/v1/bench_ping/ping', authorization);
    const koaBaseline = [path.join(ROOT, 'bench', 'koa-baseline.mjs')];
    const koaServer = await start(NODE, koaBaseline, env, '/');
    const spinServer =
      SPIN === null ? null : await start(NODE, koaBaseline, { ...env, BENCH_SPIN_MICROS: String(SPIN) }, '/');
    const otherServer =
      AGAINST === undefined
        ? null
        : await start(
            path.join(path.resolve(AGAINST), 'bin', 'ward'),
            ['backend'],
            env,
            '/api/v1/bench_ping/ping',
            authorization,
          );
    const wardRounds: Round[] = [];
    const koaRounds: Round[] = [];
    const spinRounds: Round[] = [];
    const otherRounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The other checkout first in every other round: neither always follows the bare Koa.
      if (otherServer !== null && round % 2 === 1)
        otherRounds.push(await measure(otherServer.url, authorization, otherServer.pid));
      wardRounds.push(await measure(wardServer.url, authorization, wardServer.pid));
      if (otherServer !== null && round % 2 === 0)
        otherRounds.push(await measure(otherServer.url, authorization, otherServer.pid));
      koaRounds.push(await measure(koaServer.url, {}, koaServer.pid));
      if (spinServer !== null) spinRounds.push(await measure(spinServer.url, {}, spinServer.pid));
    }
    const [w, k] = [median(wardRounds.map((r) => r.rps)), median(koaRounds.map((r) => r.rps))];
    const [wc, kc] = [median(wardRounds.map((r) => r.cpu)), median(koaRounds.map((r) => r.cpu))];
    console.log(
      `permission-checked GET${METRICS ? ' (metrics on)' : ''}: ward ${w.toFixed(0)} req/s, bare Koa ${k.toFixed(0)} req/s -> ${ratio(w, k)} (target >= 0.8x; ${CONNECTIONS} connections, median of ${ROUNDS} alternating ${SECONDS} s rounds); CPU per request: ward ${micros(wc)}, bare Koa ${micros(kc)} -> ${(wc / kc).toFixed(2)}x`,
    );
    if (otherServer !== null) {
      const [or, oc] = [median(otherRounds.map((r) => r.rps)), median(otherRounds.map((r) => r.cpu))];
      console.log(
        `  the same GET on ${AGAINST}: ${or.toFixed(0)} req/s -> ${ratio(or, k)}; CPU per request ${micros(oc)} -> ${(oc / kc).toFixed(2)}x (this checkout: ${micros(wc)}, ${(wc / oc).toFixed(2)}x of it)`,
      );
    }
    if (spinServer !== null) {
      const [sr, sc] = [median(spinRounds.map((r) => r.rps)), median(spinRounds.map((r) => r.cpu))];
      console.log(
        `bare Koa busy-waiting ${SPIN} µs per request: ${sr.toFixed(0)} req/s -> ${ratio(sr, k)} of bare Koa; CPU per request ${micros(sc)}, bare Koa's ${micros(kc)} + ${micros(sc - kc)} (of which the spin is ${SPIN} µs)`,
      );
    }
    const created = await fetch(`${wardServer.url.replace(/\/api\/v1\/.*$/, '')}/api/v1/patients/patients`, {
      method: 'POST',
      headers: { ...authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ mrn: 'BENCH-1', familyName: 'Bench', givenName: 'Mark' }),
    });
    const { id } = (await created.json()) as { id: number };
    const origin = new URL(wardServer.url).origin;
    const audited: number[] = [];
    const plain: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      audited.push(
        (await measure(`${origin}/api/v1/patients/patients/${id}`, authorization, wardServer.pid)).rps,
      );
      plain.push(
        (await measure(`${origin}/api/v1/bench_read/patients/${id}`, authorization, wardServer.pid)).rps,
      );
    }
    const [a, p] = [median(audited), median(plain)];
    console.log(
      `audited patient read: ${a.toFixed(0)} req/s, unaudited ${p.toFixed(0)} req/s -> ${ratio(a, p)} (target >= 0.9x; same backend, median of ${ROUNDS} alternating ${SECONDS} s rounds)`,
    );
  } finally {
    for (const server of started) await server.stop();
  }
} finally {
  await rm(storage, { recursive: true, force: true });
  await db.drop();
}
