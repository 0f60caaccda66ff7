/**
 * What the benchmarks share: a scratch database on the same server the tests use, and timing of
 * whole processes. Benchmarks print ratios against a baseline measured in the same run; they
 * never fail on time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from '../src/config.ts';
import { migrateCore } from '../src/db/migrate.ts';
import { WARD } from '../test/helpers/cli.ts';
import { newDatabase } from '../test/helpers/database.ts';
import type { ScratchDatabase } from '../test/helpers/database.ts';

export type { ScratchDatabase };

/** The Node pinned in package.json, which `bin/ward` runs on. */
export const NODE = path.join(ROOT, 'node_modules', 'node', 'bin', 'node');

/** Where `bin/ward` keeps Node's compile cache (its NODE_COMPILE_CACHE default). */
export const COMPILE_CACHE = path.join(ROOT, 'node_modules', '.cache', 'ward-node');

/** A new `ward_bench_` database on the tests' server; `pool` caps its knex pool (default 4). */
export function scratchDatabase(options: { pool?: number } = {}): Promise<ScratchDatabase> {
  return newDatabase({ prefix: 'ward_bench_', pool: options.pool });
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** Wall time of one process run in ms; rejects if it exits non-zero. */
export function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${command} exited ${code}: ${stderr}`)),
    );
  });
}

export const ratio = (value: number, baseline: number): string => `${(value / baseline).toFixed(2)}x`;

/**
 * Fifty modules as an operator might have them: the three official ones plus 47 community
 * modules (a manifest and an empty migration branch each) written into `dir`. Returns the names.
 */
export async function fiftyModules(dir: string): Promise<string[]> {
  const names = ['base', 'patients', 'appointments'];
  for (let index = 0; names.length < 50; index++) {
    const name = `bench_module_${String(index).padStart(2, '0')}`;
    names.push(name);
    await mkdir(path.join(dir, name, 'migrations'), { recursive: true });
    const manifest = { name, version: '1.0.0', summary: 'benchmark module', depends: ['patients'] };
    await writeFile(path.join(dir, name, 'manifest.json'), JSON.stringify(manifest));
  }
  return names;
}

/** A scratch database with fifty modules, and the environment a backend starts on it with. */
export interface FiftyModules {
  db: ScratchDatabase;
  env: NodeJS.ProcessEnv;
  /** Drops the database and removes the modules' and the storage's folders. */
  remove(): Promise<void>;
}

/**
 * A scratch database whose fifty modules (fiftyModules) are scheduled for install: the first start
 * on it installs them, and the starts after it have nothing to change.
 */
export async function fiftyModuleDatabase(): Promise<FiftyModules> {
  const db = await scratchDatabase();
  const modulesDir = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-modules-'));
  const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-storage-'));
  const remove = async () => {
    await rm(modulesDir, { recursive: true, force: true });
    await rm(storage, { recursive: true, force: true });
    await db.drop();
  };
  try {
    await migrateCore(db.knex);
    const names = await fiftyModules(modulesDir);
    await db.knex('core_module').insert(names.map((name) => ({ name, state: 'to_install' })));
  } catch (error) {
    await remove();
    throw error;
  }
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    WARD_MODULE_PATHS: modulesDir,
    WARD_STORAGE_DIR: storage,
    LOG_LEVEL: 'warn',
  };
  return { db, env, remove };
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `bin/ward` with `args`; its standard output, trimmed. Throws on a non-zero exit. */
export function ward(args: string[], env: NodeJS.ProcessEnv): string {
  const run = spawnSync(WARD, args, { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`ward ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** Starts a server process and resolves once `url` answers 200; `stop` ends it. */
export async function startServer(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  route: string,
  headers = {},
) {
  const port = await freePort();
  const child = spawn(command, args, {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The end of what it printed on stderr, to say why a server that never answered stopped.
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + String(chunk)).slice(-2000)));
  // 'close' rather than 'exit': by then its stderr has been read to the end.
  const exited = new Promise((resolve) => child.on('close', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  // A command that cannot run (not found, not executable) fails to start rather than exiting.
  let unstarted = '';
  child.on('error', (error) => (unstarted = error.message));
  const url = `http://127.0.0.1:${port}${route}`;
  for (;;) {
    const status = await fetch(url, { headers }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { url, stop, pid: child.pid as number };
    if (status !== 0 || child.exitCode !== null) {
      await stop();
      if (unstarted !== '') throw new Error(`${command} did not start: ${unstarted}`);
      throw new Error(
        `${url} answered ${status === 0 ? 'nothing' : status}${stderr === '' ? '' : `; its stderr:\n${stderr}`}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The flags `bin/ward` runs Node with (between its `"$node"` and the entry point), so that a
 * benchmark's child process runs Ward's code as Ward runs.
 */
export const WARD_NODE_FLAGS: readonly string[] = (() => {
  const launcher = readFileSync(path.join(ROOT, 'bin', 'ward'), 'utf8');
  const line = /^flags="(.*)"$/m.exec(launcher);
  if (line === null) throw new Error('bench/lib.ts: bin/ward has no flags="…" line');
  return line[1]!.split(' ').filter((flag) => flag !== '');
})();

/**
 * CPU time (user and system, in ms) process `pid` has used so far, from /proc (Linux). Unlike wall
 * time it leaves out the waits a loaded machine adds, so it compares starts on a busy machine.
 */
export function cpuTimeMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of the file, in clock ticks of 10 ms (USER_HZ on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Milliseconds from spawn to the first 200 from /health; then stops the process and waits. With
 * `cpu`, the CPU time the process had used by that answer is pushed onto it.
 */
export async function startToHealthy(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cpu?: number[],
): Promise<number> {
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
      if (ok) {
        const elapsed = performance.now() - started;
        cpu?.push(cpuTimeMs(child.pid as number));
        return elapsed;
      }
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The environment of a backend on `databaseUrl` and `storage` with the benchmark fixture modules,
 * `modules` installed (a start applies them, so that the base module's users and tokens exist),
 * and the bearer header of a new admin's token.
 */
export async function benchBackend(
  databaseUrl: string,
  storage: string,
  modules: readonly string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ env: NodeJS.ProcessEnv; authorization: Record<string, string> }> {
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    WARD_STORAGE_DIR: storage,
    WARD_MODULE_PATHS: path.join(ROOT, 'bench', 'fixtures', 'modules'),
    LOG_LEVEL: 'warn',
    ...extra,
  };
  ward(['db', 'migrate'], env);
  for (const module of modules) ward(['modules', 'install', module], env);
  await (await startServer(WARD, ['backend'], env, '/health')).stop();
  ward(['users', 'create', 'bench', '--role', 'admin'], env);
  const token = ward(['tokens', 'create', '--user', 'bench', '--name', 'bench'], env);
  return { env, authorization: { authorization: `Bearer ${token}` } };
}
