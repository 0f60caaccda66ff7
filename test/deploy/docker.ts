/**
 * The deploy test's hands: processes it runs (docker, docker-compose, dockerd), each ended by the
 * pid it was given, and polling with a deadline rather than sleeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws for a non-zero exit (the caller asserts it). */
export function run(
  command: string,
  args: readonly string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
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

/** Polls `check` until it returns a value other than undefined, or throws after `ms`. */
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
  if ((await run('docker', ['info'])).code === 0) return { stop: async () => undefined };
  const log = openSync(path.join(logDir, 'dockerd.log'), 'a');
  const dockerd: ChildProcess = spawn('dockerd', [], { stdio: ['ignore', log, log] });
  const exited = new Promise<void>((resolve) => dockerd.once('exit', () => resolve()));
  await until('dockerd to answer', 60_000, async () =>
    (await run('docker', ['info'])).code === 0 ? true : undefined,
  );
  return {
    async stop() {
      if (dockerd.pid !== undefined && dockerd.exitCode === null) process.kill(dockerd.pid, 'SIGTERM');
      await exited;
    },
  };
}
