/**
 * Runs the real `bin/ward` as a child process, the way an operator does, and captures what it
 * prints. Each call gets its own storage and frontend directories unless the test shares them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/config.ts';

export const WARD = path.join(ROOT, 'bin', 'ward');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface WardEnv {
  /** Omit it to make ward use an embedded server under WARD_STORAGE_DIR. */
  DATABASE_URL?: string;
  WARD_MODULE_PATHS?: string;
  WARD_STORAGE_DIR?: string;
  WARD_FRONTEND_DIR?: string;
  [name: string]: string | undefined;
}

/** The SECRET_KEY of test backends: two-factor secrets are sealed with it. */
export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef-not-for-use';

export async function scratchDir(prefix = 'ward-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * `options.input` is written to the command's stdin (passwords); without it stdin is closed.
 * `options.bin` is the `bin/ward` of another Ward folder (a copy a test changes).
 */
export function ward(
  args: string[],
  env: WardEnv,
  options: { input?: string; bin?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.bin ?? WARD, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // A command that exits without reading stdin makes the write fail with EPIPE: not the test's concern.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The preload that records what a run loaded (test/helpers/record-loads.ts), as `--import` takes it. */
export const RECORD_LOADS = pathToFileURL(path.join(ROOT, 'test', 'helpers', 'record-loads.ts')).href;

/** A `ward` run as `ward` makes it, and the URL of every module it loaded, a line each: the path it took. */
export async function tracedWard(
  args: string[],
  env: WardEnv,
  options: { bin?: string } = {},
): Promise<{ run: Run; loaded: string }> {
  const file = path.join(await scratchDir('ward-loads-'), 'loaded');
  const run = await ward(
    args,
    { ...env, NODE_OPTIONS: `--import=${RECORD_LOADS}`, RECORD_LOADS_TO: file },
    options,
  );
  return { run, loaded: await readFile(file, 'utf8') };
}

export function parseJson<T = unknown>(run: Run): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`ward printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}
