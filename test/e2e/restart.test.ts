/**
 * The restart channels and the supervisor, with real processes: `ward serve` supervises a
 * backend the way a container runtime does, and every channel ends in a fresh, healthy backend.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { ROOT } from '../../src/config.ts';
import { FIXTURES, scratchDir, WARD, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';
import { alive, restart, serve } from '../helpers/serve.ts';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Supervisor {
  base: string;
  pid: number;
  output: () => string;
  /** Resolves with the pids of the backends that have said they listen, in order. */
  listening: (count: number) => Promise<void>;
  stop: () => Promise<number | null>;
}

/** `ward serve` on a fixed port, so every backend it starts answers at the same address. */
async function supervisor(t: ExecutionContext, env: Record<string, string>): Promise<Supervisor> {
  const port = await freePort();
  const child = spawn(WARD, ['serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // SIGTERM, not SIGKILL: a killed supervisor would leave its backend running, holding our pipes.
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  const listening = async (count: number) => {
    const deadline = Date.now() + 90_000;
    while ((output.match(/listening on/g) ?? []).length < count) {
      if (Date.now() > deadline)
        throw new Error(`only ${(output.match(/listening on/g) ?? []).length} starts:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await listening(1);
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    output: () => output,
    listening,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function setup(t: ExecutionContext) {
  const { url, knex } = await testDatabase(t);
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir(),
    WARD_MODULE_PATHS:
      path.join(FIXTURES, 'modules', 'lifecycle-v1') + ':' + path.join(FIXTURES, 'modules', 'lifecycle-bad'),
  };
  await restart(env);
  return { knex, env };
}

test('modules restart with no backend running says so and how to start one', async (t) => {
  const { env } = await setup(t);
  const run = await ward(['modules', 'restart'], env);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /No backend is running, so nothing was restarted/);
  const waiting = await ward(['modules', 'restart', '--wait'], env);
  t.is(waiting.code, 1);
  t.regex(waiting.stderr, /no backend is running/);
});

test('modules restart --wait restarts the supervised backend, follows the plan and waits until it is back', async (t) => {
  const { knex, env } = await setup(t);
  const served = await supervisor(t, env);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.is((await ward(['modules', 'install', 'lab'], env)).code, 0);
  const run = await ward(['modules', 'restart', '--wait'], env);
  t.is(run.code, 0, run.stdout + run.stderr);
  t.regex(run.stdout, /Plan: 3 to install, 0 to upgrade, 0 to uninstall\./);
  t.regex(run.stdout, /^ {2}install lab: finalize done$/m);
  t.regex(run.stdout, /Backends are back\.$/m);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.like(await knex('core_module').where({ name: 'lab' }).first('state'), { state: 'installed' });
  t.is(await served.stop(), 0);
});

test('modules restart --wait exits 1 when a module fails, and the backend still comes back', async (t) => {
  const { env } = await setup(t);
  const served = await supervisor(t, env);
  t.is((await ward(['modules', 'install', 'broken_seed'], env)).code, 0);
  const run = await ward(['modules', 'restart', '--wait'], env);
  t.is(run.code, 1, run.stdout);
  t.regex(run.stdout, /install broken_seed: seed failed/);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  await served.stop();
});

test('the supervisor starts a killed backend again, and SIGTERM stops both', async (t) => {
  const { env } = await setup(t);
  const served = await supervisor(t, env);
  const pid = Number(/listening on .*, pid (\d+)\)/.exec(served.output())?.[1]);
  t.true(Number.isInteger(pid));
  process.kill(pid, 'SIGKILL');
  await served.listening(2);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.is(await served.stop(), 0);
});

/** The pids of the backends that said they listen, in order. */
const listeningPids = (output: string) =>
  [...output.matchAll(/listening on .*, pid (\d+)\)/g)].map((match) => Number(match[1]));

/** Resolves with the spare's pid once the supervisor (at LOG_LEVEL=debug) reports it ready. */
async function spareReady(served: Supervisor): Promise<number> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const line = served
      .output()
      .split('\n')
      .find((entry) => entry.includes('a spare backend is ready'));
    if (line !== undefined) return (JSON.parse(line) as { sparePid: number }).sparePid;
    if (Date.now() > deadline) throw new Error(`no spare:\n${served.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a requested restart hands over to the warm spare the supervisor prepared', async (t) => {
  const { env } = await setup(t);
  const served = await supervisor(t, { ...env, LOG_LEVEL: 'debug' });
  const spare = await spareReady(served);
  t.not(spare, listeningPids(served.output())[0]);
  t.is((await ward(['modules', 'restart'], env)).code, 0);
  await served.listening(2);
  t.is(listeningPids(served.output())[1], spare, 'the new backend is the spare');
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.is(await served.stop(), 0);
});

test('POST /api/v1/modules/-/restart and SIGTERM to the backend each end in a new, healthy backend', async (t) => {
  const { env } = await setup(t);
  t.is((await ward(['modules', 'install', 'base'], env)).code, 0);
  await restart(env);
  t.is((await ward(['users', 'create', 'ops', '--role', 'admin'], env)).code, 0);
  const token = (await ward(['tokens', 'create', '--user', 'ops'], env)).stdout.trim();
  const served = await supervisor(t, { ...env, LOG_LEVEL: 'debug' });
  await spareReady(served);
  const answer = await fetch(`${served.base}/api/v1/modules/-/restart`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(answer.status, 202);
  await served.listening(2);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  // As the container runtime stops a backend; `ward serve` starts the next one.
  process.kill(listeningPids(served.output())[1] as number, 'SIGTERM');
  await served.listening(3);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.is(new Set(listeningPids(served.output())).size, 3, 'three different backends');
  t.is(await served.stop(), 0);
});

test('with WARD_SPARE_BACKEND=0 the supervisor keeps no spare and still restarts', async (t) => {
  const { env } = await setup(t);
  const served = await supervisor(t, { ...env, LOG_LEVEL: 'debug', WARD_SPARE_BACKEND: '0' });
  t.is((await ward(['modules', 'restart'], env)).code, 0);
  await served.listening(2);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.notRegex(served.output(), /spare/);
  t.is(await served.stop(), 0);
});

test('the backend and the spare stop when the supervisor is killed', async (t) => {
  const { env } = await setup(t);
  const served = await supervisor(t, { ...env, LOG_LEVEL: 'debug' });
  const spare = await spareReady(served);
  const [backend] = listeningPids(served.output());
  process.kill(served.pid, 'SIGKILL');
  const deadline = Date.now() + 60_000;
  while ((alive(backend as number) || alive(spare)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  t.false(alive(backend as number), 'the backend outlived its supervisor');
  t.false(alive(spare), 'the spare outlived its supervisor');
});

test('a start refused because of orphan modules backs off instead of spinning', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'vanished', state: 'installed', version: '1.0.0' }]);
  const port = await freePort();
  const child = spawn(WARD, ['serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  // The supervisor logs each start and, at each failure, the wait before the next: the schedule is
  // checked from those timestamps, so a slow machine makes the test slower, never wrong.
  const records = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"name":"ward-supervisor"'))
      .flatMap((line) => {
        try {
          return [
            JSON.parse(line) as { msg: string; time: number; delayMs?: number; failuresInARow: number },
          ];
        } catch {
          return [];
        }
      });
  const starts = () => records().filter((record) => record.msg === 'starting the backend');
  const deadline = Date.now() + 240_000;
  while (starts().length < 4) {
    if (Date.now() > deadline) throw new Error(`only ${starts().length} starts:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  t.is(await exited, 0);
  const failures = records().filter((record) => record.delayMs !== undefined);
  t.deepEqual(
    failures.slice(0, 3).map((record) => [record.failuresInARow, record.delayMs]),
    [
      [1, 250],
      [2, 500],
      [3, 1000],
    ],
    'the wait doubles with each failure in a row',
  );
  for (const [index, failure] of failures.slice(0, 3).entries()) {
    const next = starts()[index + 1] as { time: number };
    t.true(
      next.time - failure.time >= (failure.delayMs as number),
      `start ${index + 2} came ${next.time - failure.time} ms after a failure that asked for ${failure.delayMs} ms`,
    );
  }
  t.regex(output, /orphan modules \(in the database, missing from disk\):\nvanished/);
});

/** The slow_route fixture installed, and a token for a user who may call it. */
async function slowRoute(t: ExecutionContext) {
  const { env: base } = await setup(t);
  const env = { ...base, WARD_MODULE_PATHS: path.join(FIXTURES, 'modules', 'runtime') };
  t.is((await ward(['modules', 'install', 'slow_route'], env)).code, 0);
  await restart(env);
  t.is((await ward(['users', 'create', 'loadtest'], env)).code, 0);
  const token = (await ward(['tokens', 'create', '--user', 'loadtest'], env)).stdout.trim();
  const headers = { authorization: `Bearer ${token}` };
  /** Resolves once `count` requests of /wait are in flight in the backend at `base`: read, not guessed. */
  const inFlight = async (base: string, count: number) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await fetch(`${base}/api/v1/slow_route/waiting`, { headers });
      const { waiting } = (await answer.json()) as { waiting: number };
      if (waiting >= count) return;
      if (Date.now() > deadline) throw new Error(`only ${waiting} of ${count} requests arrived`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { env, headers, inFlight };
}

test('a restart under HTTP load lets every request in flight finish', async (t) => {
  const { env, headers, inFlight } = await slowRoute(t);
  const served = await supervisor(t, env);
  // Long enough to still be in flight when the restart, a CLI run, reaches a loaded machine's backend.
  const requests = Array.from({ length: 20 }, () =>
    fetch(`${served.base}/api/v1/slow_route/wait?ms=5000`, { headers }).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      (error: unknown) => ({ status: 0, body: String(error) }),
    ),
  );
  await inFlight(served.base, 20);
  t.is((await ward(['modules', 'restart'], env)).code, 0);
  const answers = await Promise.all(requests);
  t.deepEqual(
    answers.filter((answer) => answer.status !== 200),
    [],
    'no request that was in flight failed',
  );
  await served.listening(2);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  await served.stop();
});

test('a stop does not wait out its grace period for a client that keeps its connection busy', async (t) => {
  const { env, headers, inFlight } = await slowRoute(t);
  const served = await serve(env);
  // One kept-alive connection, as a load balancer or a probe holds, busy when the stop begins.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const get = (pathname: string) =>
    new Promise<{ status: number; connection: string | undefined }>((resolve, reject) =>
      http
        .get(`${served.base}${pathname}`, { agent, headers }, (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode as number, connection: response.headers.connection }),
          );
        })
        .on('error', reject),
    );
  const slow = get('/api/v1/slow_route/wait?ms=3000');
  await inFlight(served.base, 1);
  const stopping = Date.now();
  const stopped = served.stop();
  // In flight when the stop began: answered in full, and told not to send more on this connection.
  t.deepEqual(await slow, { status: 200, connection: 'close' });
  // So the next request needs a new connection, which the stopped backend no longer accepts.
  const next = await get('/health').then(
    (answer) => `answered ${answer.status}`,
    (error: NodeJS.ErrnoException) => error.code,
  );
  t.is(next, 'ECONNREFUSED');
  t.is(await stopped, 0);
  // Waiting out the grace period would take all of its 10 s; however loaded the machine, a stop
  // that drains takes the slow request's 3 s and little more.
  const took = Date.now() - stopping;
  t.true(took < 10_000, `the stop took ${took} ms; its grace period is 10 s`);
});

test('the backend reports module code that changed on disk in /health, and ward serve --watch restarts', async (t) => {
  const { env: base } = await setup(t);
  const modules = await scratchDir('ward-drift-');
  await cp(path.join(FIXTURES, 'modules', 'lifecycle-v1', 'lab'), path.join(modules, 'lab'), {
    recursive: true,
  });
  const env = { ...base, WARD_MODULE_PATHS: modules };
  const served = await supervisor(t, env);
  const healthDrift = async () =>
    ((await (await fetch(`${served.base}/health`)).json()) as { drift?: unknown[] }).drift ?? [];
  t.deepEqual(await healthDrift(), []);
  await mkdir(path.join(modules, 'newcomer'));
  await writeFile(
    path.join(modules, 'newcomer', 'manifest.json'),
    JSON.stringify({ name: 'newcomer', version: '0.1.0' }),
  );
  const deadline = Date.now() + 60_000;
  let drift: unknown[] = [];
  while (drift.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    drift = await healthDrift();
  }
  t.deepEqual(drift, [{ module: 'newcomer', change: 'added' }]);
  t.regex(served.output(), /"module":"newcomer","change":"added","detail":"0\.1\.0 appeared on disk"/);
  await served.stop();

  const watching = spawn(WARD, ['serve', '--watch'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watchingExited = new Promise((resolve) => watching.on('exit', resolve));
  t.teardown(async () => {
    if (watching.exitCode === null && watching.signalCode === null) watching.kill('SIGTERM');
    await watchingExited;
  });
  let output = '';
  watching.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  watching.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const starts = () => (output.match(/listening on/g) ?? []).length;
  const until = async (count: number) => {
    const end = Date.now() + 60_000;
    while (starts() < count && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  await until(1);
  await writeFile(path.join(modules, 'newcomer', 'notes.txt'), 'changed\n');
  await until(2);
  t.is(starts(), 2, output);
  t.regex(output, /module code changed; restarting the backend/);
  watching.kill('SIGTERM');
  await watchingExited;
});
