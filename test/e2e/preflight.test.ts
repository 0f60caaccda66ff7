/**
 * A restart never makes things worse, with real processes: every restart channel checks what the
 * next start would refuse and, if anything, refuses while the running backend keeps serving; a
 * start that keeps failing under `ward serve` is tried again as soon as its cause is fixed; a
 * second `ward modules restart --wait` follows a restart under way; and a second `ward serve` on a
 * taken port stops at once.
 */
import { spawn } from 'node:child_process';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import pg from 'pg';
import { ROOT } from '../../src/config.ts';
import { LOCK_KEYS } from '../../src/db/lock.ts';
import { runningBackends } from '../../src/db/restart-signal.ts';
import { scratchDir, WARD, ward, type WardEnv } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';
import { restart } from '../helpers/serve.ts';

const BROKEN_GRANTS = '{\n  "roles": {\n    "ops": ["x.y.read",]\n  }\n}\n';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A JSON line of the supervisor's or a backend's log. */
interface LogRecord {
  name: string;
  msg: string;
  time: number;
  delayMs?: number;
}

interface Running {
  base: string;
  port: number;
  output: () => string;
  records: () => LogRecord[];
  /** The pids of the backends that said they listen, in order. */
  listening: () => number[];
  until: (what: string, done: () => boolean | Promise<boolean>, ms?: number) => Promise<void>;
  exited: Promise<number | null>;
  /** The exit code once it exited, else null. */
  code: () => number | null;
}

/** A Ward process (`ward serve`, or `ward modules restart --wait`) whose output is watched as it comes. */
function run(t: ExecutionContext, args: string[], env: WardEnv, port = 0): Omit<Running, 'base'> {
  const child = spawn(WARD, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', PORT: String(port), ...env },
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
  const records = () =>
    output.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as LogRecord];
      } catch {
        return [];
      }
    });
  const until = async (what: string, done: () => boolean | Promise<boolean>, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return {
    port,
    output: () => output,
    records,
    listening: () => [...output.matchAll(/listening on .*, pid (\d+)\)/g)].map((match) => Number(match[1])),
    until,
    exited,
    code: () => child.exitCode,
  };
}

/** `ward serve` on a fixed port, so every backend it starts answers at the same address. */
async function serve(t: ExecutionContext, env: WardEnv, options: { listening?: boolean } = {}) {
  const port = await freePort();
  const served = { ...run(t, ['serve'], env, port), base: `http://127.0.0.1:${port}` };
  if (options.listening !== false)
    await served.until('the first backend', () => served.listening().length > 0);
  return served;
}

async function setup(t: ExecutionContext) {
  const { url, knex } = await testDatabase(t);
  const storage = await scratchDir();
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: storage,
    WARD_MODULE_PATHS: await scratchDir('ward-modules-'),
  };
  await restart(env);
  return { knex, env, storage };
}

const backendPids = async (knex: Parameters<typeof runningBackends>[0]) =>
  (await runningBackends(knex)).map((backend) => backend.pid);

test('restart is refused while the next start would be, on the CLI and over HTTP, and the backend keeps serving; --force restarts anyway', async (t) => {
  const { knex, env, storage } = await setup(t);
  t.is((await ward(['modules', 'install', 'base'], env)).code, 0);
  await restart(env);
  t.is((await ward(['users', 'create', 'ops', '--role', 'admin'], env)).code, 0);
  const token = (await ward(['tokens', 'create', '--user', 'ops'], env)).stdout.trim();
  const served = await serve(t, env);
  const [first] = served.listening();
  const grants = path.join(storage, 'grants.json');
  await writeFile(grants, BROKEN_GRANTS);

  const cli = await ward(['modules', 'restart'], env);
  t.is(cli.code, 1, cli.stdout + cli.stderr);
  t.regex(
    cli.stderr,
    /^error: not restarted: the backend would refuse to start again:\n- .*grants\.json: is not valid JSON: Unexpected token '\]' at line 3, column 24\n {2}fix: fix the file/m,
  );
  t.regex(
    cli.stderr,
    /hint: a running backend keeps serving; .*`ward modules restart --force` restarts anyway/,
  );

  const refused = await fetch(`${served.base}/api/v1/modules/-/restart`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(refused.status, 409);
  const body = (await refused.json()) as { error: { code: string; findings: Array<{ code: string }> } };
  t.is(body.error.code, 'restart_refused');
  t.deepEqual(
    body.error.findings.map((finding) => finding.code),
    ['invalid_grants_file'],
  );
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.deepEqual(await backendPids(knex), [first], 'the same backend serves');

  const forced = await ward(['modules', 'restart', '--force'], env);
  t.is(forced.code, 0, forced.stdout + forced.stderr);
  t.regex(forced.stdout, /Asked 1 running backend\(s\) to restart\./);
  // The next start is refused as the preflight said; fixing the file brings a backend back.
  await served.until('the refused start', () => /backend exited \(1\)/.test(served.output()));
  t.regex(served.output(), /grants\.json: is not valid JSON/);
  await writeFile(grants, '{"roles": {}}');
  await served.until('a new backend', () => served.listening().length === 2);
  t.is((await fetch(`${served.base}/health`)).status, 200);
});

test('a backend whose own files would stop its next start refuses a restart the CLI asked for, and --wait says so', async (t) => {
  const { knex, env } = await setup(t);
  // Only the backend reads this grants file: the CLI's check, with its own settings, passes.
  const grants = path.join(await scratchDir(), 'grants.json');
  await writeFile(grants, '{"roles": {}}');
  const served = await serve(t, { ...env, WARD_GRANTS_FILE: grants });
  const [first] = served.listening();
  await writeFile(grants, BROKEN_GRANTS);
  const cli = await ward(['modules', 'restart', '--wait', '--timeout', '60'], env);
  t.is(cli.code, 1, cli.stdout + cli.stderr);
  t.regex(cli.stdout, /Asked 1 running backend\(s\) to restart\./);
  t.regex(
    cli.stderr,
    new RegExp(
      `^error: 1 backend\\(s\\) checked their next start and refused to restart; they keep serving:\\nbackend pid ${first}:\\n- ${grants}: is not valid JSON: .* at line 3, column 24$`,
      'm',
    ),
  );
  t.regex(served.output(), /restart requested over NOTIFY refused: the next start would fail; still serving/);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.deepEqual(await backendPids(knex), [first], 'the same backend serves');
});

test('a start refused because of an orphan is tried again as soon as the code is back, not when the back-off ends', async (t) => {
  const { knex, env } = await setup(t);
  await setRows(knex, [{ name: 'vanished', state: 'installed', version: '1.0.0' }]);
  const served = await serve(t, env, { listening: false });
  await served.until('a refused start', () => /backend exited \(1\)/.test(served.output()));
  // No backend serves, but the command sees the supervisor, so it reports why the start is refused.
  const cli = await ward(['modules', 'restart'], env);
  t.is(cli.code, 1, cli.stdout + cli.stderr);
  t.regex(cli.stderr, /^error: not restarted: the backend would refuse to start again:\n- orphan modules/m);
  // A back-off long enough that a start at its end cannot be mistaken for one the fix caused.
  const backOff = () => served.records().find((record) => (record.delayMs ?? 0) >= 8_000);
  await served.until('a back-off of 8 s', () => backOff() !== undefined, 120_000);
  t.is(served.listening().length, 0);
  // The code comes back whole, in one step, as a deploy puts it back.
  const code = path.join(await scratchDir(), 'vanished');
  await mkdir(code);
  await writeFile(path.join(code, 'manifest.json'), JSON.stringify({ name: 'vanished', version: '1.0.0' }));
  await rename(code, path.join(env.WARD_MODULE_PATHS, 'vanished'));
  await served.until('a backend', () => served.listening().length === 1);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  const { time, delayMs } = backOff() as Required<LogRecord>;
  const listening = served.records().find((record) => record.name === 'ward' && record.msg === 'listening');
  t.truthy(listening);
  t.true(
    (listening as LogRecord).time < time + delayMs,
    'the backend listened before the back-off would have started it',
  );
  t.regex(
    served.output(),
    /module code, a settings file or the grants file changed; starting the backend now/,
  );
});

test('ward serve --watch restarts on a change only if the next start would not refuse; until then the backend keeps serving', async (t) => {
  const { knex, env } = await setup(t);
  const manifest = path.join(env.WARD_MODULE_PATHS, 'watched', 'manifest.json');
  await mkdir(path.dirname(manifest));
  await writeFile(manifest, JSON.stringify({ name: 'watched', version: '1.0.0' }));
  await setRows(knex, [{ name: 'watched', state: 'installed', version: '1.0.0' }]);
  const port = await freePort();
  const served = run(t, ['serve', '--watch'], env, port);
  await served.until('the first backend', () => served.listening().length === 1);
  const [first] = served.listening();
  await writeFile(manifest, '{"name": "watched",');
  await served.until('the refusal', () =>
    /restart requested by the supervisor refused: the next start would fail; still serving/.test(
      served.output(),
    ),
  );
  t.regex(served.output(), /modules the database counts on whose code on disk Ward cannot use/);
  t.is((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
  t.deepEqual(await backendPids(knex), [first], 'the same backend serves');
  await writeFile(manifest, JSON.stringify({ name: 'watched', version: '1.0.0', summary: 'fixed' }));
  await served.until('the restart', () => served.listening().length === 2);
  t.is((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
});

test('a second modules restart --wait issued while a restart is under way follows it instead of failing', async (t) => {
  const { knex, env } = await setup(t);
  const served = await serve(t, env);
  // The test holds the reconcile lock: the restarted backend waits on it, so the restart stays
  // under way, with no backend listening, for as long as the test needs.
  const lock = new pg.Client({ connectionString: env.DATABASE_URL });
  await lock.connect();
  t.teardown(() => lock.end().catch(() => undefined));
  await lock.query('select pg_advisory_lock($1)', [LOCK_KEYS.reconcile]);
  const first = run(t, ['modules', 'restart', '--wait'], env);
  await first.until('the old backend to stop', async () => (await backendPids(knex)).length === 0);
  const second = run(t, ['modules', 'restart', '--wait'], env);
  await second.until('the second command to see the restart under way', () =>
    /a restart is under way/.test(second.output()),
  );
  t.regex(second.output(), /No backend is serving right now, but a restart is under way \(/);
  await lock.query('select pg_advisory_unlock($1)', [LOCK_KEYS.reconcile]);
  t.is(await first.exited, 0, first.output());
  t.is(await second.exited, 0, second.output());
  t.regex(second.output(), /Backends are back\.$/m);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  t.is(served.listening().length, 2, 'one restart: the second command followed it');
});

test('a second ward serve on a port already taken exits at once, saying so, and starts nothing', async (t) => {
  const { env } = await setup(t);
  const served = await serve(t, env);
  const second = run(t, ['serve'], env, served.port);
  // Generous: it must exit at all, where it used to retry for ever.
  await second.until('the second ward serve to exit', async () => second.code() !== null);
  t.is(second.code(), 1);
  t.regex(
    second.output(),
    new RegExp(
      `^error: port ${served.port} is already in use on 127\\.0\\.0\\.1\\nhint: stop what listens there`,
      'm',
    ),
  );
  t.notRegex(second.output(), /starting the backend/);
  t.is((await fetch(`${served.base}/health`)).status, 200);
});
