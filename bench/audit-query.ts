/**
 * The audit trail's two questions on a big trail: "every access to this patient" and "everything
 * this user did", first pages (50 events) through `GET /api/v1/audit` on `ward backend`, over
 * 10 million rows generated in the database (INSERT … SELECT generate_series, the indexes built
 * once afterwards, as a bulk load does), a sixth of them lists naming 20 patients each, so that a
 * patient's page reads both their own records' rows and the lists that showed them. Prints the p95 latency of each against the target of
 * 1 s as a ratio (below 1.00x meets it).
 *
 *   node bench/audit-query.ts [--rows N]   (default 10000000)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WARD } from '../test/helpers/cli.ts';
import { freePort, ratio, scratchDatabase } from './lib.ts';

const rowsFlag = process.argv.indexOf('--rows');
const ROWS = rowsFlag === -1 ? 10_000_000 : Number(process.argv[rowsFlag + 1]);
const PATIENTS = 100_000;
/** Staff ids in the generated rows (1..STAFF): the measured users are among them, as busy as any other. */
const STAFF = 500;
/** Patients a generated list showed. */
const LISTED = 20;
const SAMPLES = 200;
const TARGET_MS = 1000;

function ward(args: string[], env: NodeJS.ProcessEnv): string {
  const run = spawnSync(WARD, args, { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`ward ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

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
    if (child.exitCode !== null) throw new Error('ward backend exited before answering');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const p95 = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] as number;
};

/** Wall time of each first page, requested one after another (what one administrator waits for). */
async function firstPages(base: string, token: string, query: (sample: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = performance.now();
    const response = await fetch(`${base}/api/v1/audit?${query(sample)}&limit=50`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { items?: unknown[] };
    times.push(performance.now() - started);
    if (response.status !== 200 || !Array.isArray(body.items) || body.items.length === 0)
      throw new Error(`${query(sample)} answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  }
  return times;
}

const db = await scratchDatabase();
const storage = await mkdtemp(path.join(os.tmpdir(), 'ward-bench-audit-'));
try {
  const env = { PATH: process.env.PATH, DATABASE_URL: db.url, WARD_STORAGE_DIR: storage, LOG_LEVEL: 'warn' };
  ward(['db', 'migrate'], env);
  ward(['modules', 'install', 'base'], env);
  // A start applies the install, so that the base module's users and tokens exist.
  await (await startBackend(env)).stop();
  ward(['users', 'create', 'bench', '--role', 'admin'], env);
  ward(['users', 'create', 'nurse'], env);
  const token = ward(['tokens', 'create', '--user', 'bench', '--name', 'bench'], env);

  const started = performance.now();
  const indexes = (
    await db.knex.raw(
      `select indexname, indexdef from pg_indexes where tablename = 'core_audit_event' and indexname not like '%_pkey'`,
    )
  ).rows as Array<{ indexname: string; indexdef: string }>;
  await db.knex.transaction(async (trx) => {
    await trx.raw(`set local synchronous_commit = off`);
    for (const index of indexes) await trx.raw(`drop index ${index.indexname}`);
    // One row in ten by a job or the CLI; the others by a staff member (ids 1..STAFF, the nurse's
    // among them) reading (most), listing or changing a patient's record, over the last year. A
    // list (one row in six) showed LISTED patients and names no patient of its own.
    await trx.raw(
      `insert into core_audit_event (at, actor, user_id, action, module, kind, record_id, patient_id, patient_ids, client, outcome, detail, hash)
       select now() - make_interval(secs => (? - g) * 3),
              case when g % 10 = 0 then 'job:' || (g % 97) else 'user:' || u || ':session:' || substr(md5(u::text), 1, 16) end,
              case when g % 10 = 0 then null else u end,
              (array['record.read', 'record.read', 'record.read', 'record.list', 'record.update', 'record.create'])[1 + g % 6],
              'patients', 'patient',
              case when g % 6 = 3 then null else p::text end,
              case when g % 6 = 3 then null else p::text end,
              case when g % 6 = 3 then array(select (1 + (p + k * 997) % ${PATIENTS})::text from generate_series(0, ${LISTED - 1}) k) end,
              case when g % 10 = 0 then null else '10.0.' || (u % 250) || '.' || (g % 250) end,
              case when g % 50 = 0 then 'refused' else 'ok' end,
              case when g % 6 = 4 then '{"changes": {"phone": ["x", "y"]}}'::jsonb end,
              decode(md5(g::text) || md5((g + 1)::text), 'hex')
         from generate_series(1::bigint, ?) g,
              lateral (select 1 + (g * 7919) % ? as p, 1 + (g * 31) % ? as u) k`,
      [ROWS, ROWS, PATIENTS, STAFF],
    );
  });
  await db.knex.raw(`set maintenance_work_mem = '256MB'`);
  for (const index of indexes) await db.knex.raw(index.indexdef);
  await db.knex.raw('analyze core_audit_event');
  const loadSeconds = (performance.now() - started) / 1000;

  const backend = await startBackend(env);
  try {
    // Warm the connection pool and the catalog caches once, as a running backend has them.
    await firstPages(backend.base, token, () => 'patient=1');
    const patient = await firstPages(
      backend.base,
      token,
      (sample) => `patient=${1 + ((sample * 104729) % PATIENTS)}`,
    );
    const user = await firstPages(backend.base, token, (sample) =>
      sample % 2 === 0 ? 'user=nurse' : 'user=bench',
    );
    for (const [label, times] of [
      ['every access to a patient', patient],
      ['everything a user did', user],
    ] as const)
      console.log(
        `audit ${label}, first page of 50 over ${ROWS.toLocaleString('en')} rows: p95 ${p95(times).toFixed(1)} ms -> ${ratio(p95(times), TARGET_MS)} of the 1 s target (${SAMPLES} requests through GET /api/v1/audit)`,
      );
    console.log(`audit rows generated and indexed in ${loadSeconds.toFixed(0)} s`);
  } finally {
    await backend.stop();
  }
} finally {
  await rm(storage, { recursive: true, force: true });
  await db.drop();
}
