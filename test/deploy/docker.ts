/**
 * The deploy test's hands: processes it runs (docker, docker-compose, dockerd), each with a time
 * limit and ended by the pid it was given, and polling with a deadline rather than sleeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** No single command of the test takes longer than this, an image build included. */
const COMMAND_LIMIT_MS = 15 * 60_000;

/**
 * Runs a command to its end, or kills it (by its pid) after `timeoutMs`; never throws for a
 * non-zero exit (the caller asserts it). A command killed for time exits with code null.
 */
export function run(
  command: string,
  args: readonly string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const limit = setTimeout(() => {
      err.push(Buffer.from(`\n(killed after ${(options.timeoutMs ?? COMMAND_LIMIT_MS) / 1000} s)`));
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, options.timeoutMs ?? COMMAND_LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      clearTimeout(limit);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.end(options.input);
  });
}

/** Like `run`, but a non-zero exit is an error carrying what the command printed. */
export async function must(
  command: string,
  args: readonly string[],
  options: Parameters<typeof run>[2] = {},
): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.code}:\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
    );
  return result.stdout;
}

/**
 * Polls `check` until it returns a value other than undefined, or throws after `ms`. Each check
 * must bound its own waiting (fetch with a timeout signal, `run` with its limit).
 */
export async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`, { cause: last });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A Docker engine for the test: the running one, or a `dockerd` started here and stopped after. */
export async function dockerEngine(logDir: string): Promise<{ stop(): Promise<void> }> {
  if ((await run('docker', ['info'], { timeoutMs: 30_000 })).code === 0)
    return { stop: async () => undefined };
  const log = openSync(path.join(logDir, 'dockerd.log'), 'a');
  const dockerd: ChildProcess = spawn('dockerd', [], { stdio: ['ignore', log, log] });
  const exited = new Promise<void>((resolve) => dockerd.once('close', () => resolve()));
  const stop = async () => {
    if (dockerd.pid !== undefined && dockerd.exitCode === null && dockerd.signalCode === null)
      try {
        process.kill(dockerd.pid, 'SIGTERM');
      } catch {
        // Gone between the check and the signal.
      }
    await exited;
  };
  try {
    await until('dockerd to answer', 60_000, async () =>
      (await run('docker', ['info'], { timeoutMs: 10_000 })).code === 0 ? true : undefined,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}
