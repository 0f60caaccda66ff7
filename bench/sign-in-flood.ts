/**
 * Document downloads on `ward backend` while a flood of failing sign-ins arrives (each from its
 * own address behind the trusted proxy and for its own username, so that no throttle stops it),
 * against downloads with no flood, in alternating rounds; prints the median download time of each
 * and their ratio (target <= 10x), and the 95th percentile and slowest. scrypt runs on libuv's
 * thread pool, which file reads share: without a bound on concurrent hashing the downloads queue
 * behind the flood's hashes and took seconds (over 1000x). The target leaves room for the CPU time
 * that two hashes at once still take: on a two-core machine, all of it.
 *
 *   node bench/sign-in-flood.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WARD } from '../test/helpers/cli.ts';
import { freePort, ratio, scratchDatabase } from './lib.ts';

const ROUNDS = 4;
const ROUND_MS = 4_000;
/** Failing sign-ins per second during a flood round: the issue saw ~22/s starve downloads. */
const FLOOD_PER_SECOND = 30;
const DOCUMENT_BYTES = 1024 * 1024;
/** Downloads start at this pace whatever the answers do, so that a stalled one cannot hide the rest. */
const DOWNLOAD_EVERY_MS = 50;

function ward(args: string[], env: NodeJS.ProcessEnv): string {
  const run = spawnSync(WARD, args, { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`ward ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** The value that `share` of `values` are at most (0.5: the median). */
function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number;
}

/** `ward backend` on a free port, once /health answers 200; `stop` ends it. */
async function startBackend(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const child = spawn(WARD, ['backend'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const status = await fetch(`${base}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { base, stop };
    if (status !== 0 || child.exitCode !== null) {
      await stop();
      throw new Error(`${base}/health answered ${status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function post(url: string, token: string, body: Buffer | string, type: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body,
  });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A patient with one document of DOCUMENT_BYTES; returns the download URL. */
async function document(base: string, token: string): Promise<string> {
  const patient = (await post(
    `${base}/api/v1/patients/patients`,
    token,
    JSON.stringify({ mrn: 'BENCH1', familyName: 'Bench', givenName: 'Mark' }),
    'application/json',
  )) as { id: number };
  const uploaded = (await post(
    `${base}/api/v1/documents/patients/${patient.id}/documents?title=scan.bin`,
    token,
    randomBytes(DOCUMENT_BYTES),
    'application/octet-stream',
  )) as { id: number };
  return `${base}/api/v1/documents/documents/${uploaded.id}/content`;
}

/** Starts a download of `url` every DOWNLOAD_EVERY_MS for ROUND_MS; returns each one's time in ms. */
async function downloads(url: string, token: string): Promise<number[]> {
  const one = async () => {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.arrayBuffer();
    if (response.status !== 200 || body.byteLength !== DOCUMENT_BYTES)
      throw new Error(`download answered ${response.status} with ${body.byteLength} bytes`);
    return performance.now() - started;
  };
  const started: Promise<number>[] = [];
  for (let at = 0; at < ROUND_MS; at += DOWNLOAD_EVERY_MS) {
    started.push(one());
    await new Promise((resolve) => setTimeout(resolve, DOWNLOAD_EVERY_MS));
  }
  return Promise.all(started);
}

let sent = 0;

/**
 * Failing sign-ins at FLOOD_PER_SECOND for ROUND_MS, each from a new address for a new username;
 * resolves once all are answered, with the count of each status (0: no answer).
 */
async function flood(base: string): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const count = (status: number) => void statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const requests: Promise<void>[] = [];
  for (let at = 0; at < ROUND_MS; at += 1000 / FLOOD_PER_SECOND) {
    sent += 1;
    const address = `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`;
    const request = fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ username: `guess${sent}`, password: 'not the password at all' }),
    });
    requests.push(
      request.then(
        async (response) => {
          await response.arrayBuffer();
          count(response.status);
        },
        () => count(0),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000 / FLOOD_PER_SECOND));
  }
  await Promise.all(requests);
  return statuses;
}

const db = await scratchDatabase();
const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-sign-in-flood-'));
try {
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    WARD_STORAGE_DIR: storage,
    WARD_TRUST_PROXY: 'on',
    LOG_LEVEL: 'error',
  };
  ward(['db', 'migrate'], env);
  ward(['modules', 'install', 'documents'], env);
  // A start applies the install, so that the base module's users and tokens exist.
  await (await startBackend(env)).stop();
  ward(['users', 'create', 'bench', '--role', 'admin'], env);
  const token = ward(['tokens', 'create', '--user', 'bench', '--name', 'bench'], env);
  const backend = await startBackend(env);
  try {
    const url = await document(backend.base, token);
    await downloads(url, token);
    const quiet: number[] = [];
    const flooded: number[] = [];
    const answers = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(...(await downloads(url, token)));
      const [times, statuses] = await Promise.all([downloads(url, token), flood(backend.base)]);
      flooded.push(...times);
      for (const [status, count] of statuses) answers.set(status, (answers.get(status) ?? 0) + count);
      // Let the last hashes finish before the next quiet round.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const ms = (values: number[], share: number) => percentile(values, share).toFixed(1);
    const [f, q] = [percentile(flooded, 0.5), percentile(quiet, 0.5)];
    const seen = [...answers].map(([status, count]) => `${count}x ${status}`).join(', ');
    console.log(
      `1 MiB download during a sign-in flood: median ${f.toFixed(1)} ms, without ${q.toFixed(1)} ms -> ${ratio(f, q)} (target <= 10x; p95 ${ms(flooded, 0.95)} against ${ms(quiet, 0.95)} ms, max ${ms(flooded, 1)} against ${ms(quiet, 1)} ms; ${flooded.length} downloads each; ${FLOOD_PER_SECOND} failing sign-ins/s answered ${seen})`,
    );
  } finally {
    await backend.stop();
  }
} finally {
  await rm(storage, { recursive: true, force: true });
  await db.drop();
}
