/**
 * Runs the real `ward serve` as a child process on a free port, as the container runtime would,
 * and stops only that process (by its pid) when the test is done with it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ROOT } from '../../src/config.ts';
import { WARD, type WardEnv } from './cli.ts';

export interface Served {
  base: string;
  pid: number;
  /** Everything the backend printed so far (its pino log lines included). */
  output: () => string;
  /**
   * Resolves with the output once it matches `pattern`; rejects with the output if the process
   * exits first. For what a test reads that the backend writes apart from the line serve() waits
   * for: pino writes its JSON lines asynchronously, so its `listening` line may come later.
   */
  waitFor: (pattern: RegExp) => Promise<string>;
  stop: () => Promise<number | null>;
}

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/**
 * Resolves once the backend listens; rejects with its output if it exits first. Runs `ward
 * backend` (one process, as a container does) unless `command` says `serve` (the supervisor);
 * `bin` is the `bin/ward` of another Ward folder (a copy a test changes).
 */
export function serve(env: WardEnv, command: 'backend' | 'serve' = 'backend', bin = WARD): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [command], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<Exited>((done) =>
      child.on('exit', (code, signal) => done({ code, signal, output })),
    );
    const waiting = new Set<() => void>();
    const waitFor = (pattern: RegExp) =>
      new Promise<string>((found, gone) => {
        const check = () => {
          if (!pattern.test(output)) return;
          waiting.delete(check);
          found(output);
        };
        waiting.add(check);
        check();
        void exited.then(() => {
          if (waiting.delete(check)) gone(new Error(`ward exited before printing ${pattern}:\n${output}`));
        });
      });
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const check of [...waiting]) check();
      // The whole line: a chunk may end inside the port number.
      const match = /listening on (http:\/\/\S+) \([^\n]*\n/.exec(output);
      if (match !== null)
        resolve({
          base: match[1] as string,
          pid: child.pid as number,
          output: () => output,
          waitFor,
          stop: async () => {
            child.kill('SIGTERM');
            return (await exited).code;
          },
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ code, signal }) =>
      reject(
        Object.assign(new Error(`ward serve exited (${code ?? signal}) before listening:\n${output}`), {
          code,
          signal,
          output,
        }),
      ),
    );
  });
}

/** One restart that applies the pending plan: start, wait until it listens, stop. */
export async function restart(env: WardEnv): Promise<string> {
  const served = await serve(env);
  const output = served.output();
  await served.stop();
  return output;
}

/** Runs `ward serve` expecting it to die before listening (a crash switch, an orphan). */
export async function serveUntilExit(env: WardEnv): Promise<Exited> {
  try {
    const served = await serve(env);
    await served.stop();
    throw new Error(`ward serve started instead of exiting:\n${served.output()}`);
  } catch (error) {
    const { code, signal, output } = error as Exited;
    if (output === undefined) throw error;
    return { code, signal, output };
  }
}

/**
 * Whether the process runs. One that exited but whose parent has not reaped it yet (an orphan
 * whose new parent is slow to, say) is a zombie, and counts as gone.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
