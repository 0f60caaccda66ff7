/**
 * migration_import's execute against `psql \copy` of the same rows into the same table, in the
 * same run: 100,000 patients generated in Synthea's patients.csv layout (the fixture generator's
 * `syntheaPatientsCsv`), validated, then executed by the real execute engine in a child process
 * of its own, run with the V8 flags `bin/ward` gives Ward. The baseline copies the very rows
 * execute wrote, every column of them (the folded search columns too, so both sides maintain the
 * same indexes over the same values), into `patients_patient`. Execute also runs with the audit
 * trail off (bench/audit-off.ts), for the trail's cost. Each runs three times on an emptied table,
 * alternating; medians are compared (targets: >= 0.5x of \copy's throughput; the audit trail
 * makes execute at most 10% slower). Then the worker's peak resident memory at 100,000 and
 * 1,000,000 rows (target: <= 160 MB at 1,000,000).
 *
 *   node bench/import.ts            # 100k ratio, memory at 100k and 1M
 *   node bench/import.ts --quick    # 100k only
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { executeRun } from '../modules/migration_import/lib/jobs/execute-run.ts';
import type { JobRow } from '../modules/migration_import/lib/jobs/job-row.ts';
import { claimExecute, claimValidate, insertJob } from '../modules/migration_import/lib/jobs/job-store.ts';
import { Lease } from '../modules/migration_import/lib/jobs/lease.ts';
import { receiveSource } from '../modules/migration_import/lib/jobs/source-file.ts';
import { sdk as wardSdk } from '../src/sdk/runtime.ts';
import { validateRun } from '../modules/migration_import/lib/jobs/validate-run.ts';
import { syntheaPatientsCsv } from '../scripts/generate-import-fixtures.ts';
import { install, officialSdk } from '../test/helpers/app.ts';
import { scratchDir } from '../test/helpers/cli.ts';
import { median, NODE, ratio, scratchDatabase, timeProcess, WARD_NODE_FLAGS } from './lib.ts';

const PSQL = '/usr/bin/psql';
const RUNS = 3;
const BATCH = 2000;
const CLAIM = { workerId: 'bench', leaseMs: 600_000 };
const MB = 1024 * 1024;

interface WorkerReport {
  ms: number;
  /** The process's peak resident set (getrusage), in bytes. */
  peakRss: number;
  /** Memory runs only: the largest heap in use right after a full collection, sampled every 250 ms. */
  liveHeap: number;
}

/** The child: executes one validated job and reports its time and peak memory as JSON. */
async function worker(url: string, storage: string, id: number, memory: boolean): Promise<void> {
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  const sdk = await officialSdk(knex, storage, 'migration_import');
  const claimed = await claimExecute(knex, id, CLAIM);
  if (claimed === undefined) throw new Error(`job ${id} is not executable`);
  const report: WorkerReport = { ms: 0, peakRss: 0, liveHeap: 0 };
  const gc = (globalThis as { gc?: () => void }).gc;
  // Collecting first measures what the run keeps, not the garbage V8 has not yet bothered to collect.
  const sample = () => {
    gc?.();
    report.liveHeap = Math.max(report.liveHeap, process.memoryUsage().heapUsed);
  };
  const timer = memory ? setInterval(sample, 250) : undefined;
  const started = performance.now();
  const lease = new Lease(knex, id, CLAIM.workerId, CLAIM.leaseMs);
  await executeRun({ knex, sdk, storageDir: storage, batchSize: BATCH }, claimed.row, lease);
  report.ms = performance.now() - started;
  clearInterval(timer);
  report.peakRss = process.resourceUsage().maxRSS * 1024;
  await knex.destroy();
  process.stdout.write(JSON.stringify(report));
}

/**
 * `memory`: sample the live heap; `audit: false`: with bench/audit-off.ts preloaded, so the run
 * records nothing in the audit trail. The worker runs with the V8 flags `bin/ward` gives Ward.
 */
function runWorker(
  url: string,
  storage: string,
  id: number,
  { memory = false, audit = true } = {},
): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const args = [import.meta.filename, '--worker', url, storage, String(id), memory ? 'memory' : 'time'];
    const flags = [
      ...WARD_NODE_FLAGS,
      ...(memory ? ['--expose-gc'] : []),
      ...(audit ? [] : ['--import', path.join(import.meta.dirname, 'audit-off.ts')]),
    ];
    const child = spawn(NODE, [...flags, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as WorkerReport) : reject(new Error(`worker exited ${code}`)),
    );
  });
}

async function* utf8(chunks: AsyncIterable<string>): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) yield Buffer.from(chunk, 'utf8');
}

/** A validated job whose source is `rows` generated patients. */
async function validatedJob(knex: Knex, storage: string, rows: number): Promise<JobRow> {
  const received = await receiveSource(
    wardSdk.files,
    storage,
    Readable.from(utf8(syntheaPatientsCsv(rows, 42))),
    Infinity,
  );
  const job = await knex.transaction(async (trx) => {
    const row = await insertJob(trx, {
      sourceSystem: 'bench',
      format: 'synthea-patients-csv',
      sourceBytes: received.bytes,
      sourceSha256: received.sha256,
      createdById: 0,
      createdBy: 'bench',
    });
    await received.keepAs(row.id);
    return row;
  });
  const claimed = (await claimValidate(knex, job.id, CLAIM))!;
  await validateRun(
    { knex, storageDir: storage, sdk: await officialSdk(knex, storage, 'migration_import') },
    claimed,
    new Lease(knex, job.id, CLAIM.workerId, CLAIM.leaseMs),
  );
  const validated = (await knex('migration_import_job').where({ id: job.id }).first()) as JobRow;
  if (validated.state !== 'validated' || validated.rows_total !== rows)
    throw new Error(`job ${job.id} did not validate`);
  return validated;
}

/**
 * Every column execute wrote (all but the id and the timestamps, which default alike on both
 * sides), read back from the table after an execute run, as a CSV file for `\copy`: the folded
 * search columns included, so the baseline maintains the same indexes over the same values.
 */
const COPIED =
  'mrn, family_name, given_name, birth_date, sex, phone, email, address, search_text, name_key, family_fold, given_fold, search_rest';

async function copyFile(url: string, storage: string, job: JobRow): Promise<string> {
  const file = path.join(storage, `copy-${job.id}.csv`);
  await psql(
    url,
    `\\copy (select ${COPIED} from patients_patient order by id) to '${file}' with (format csv)`,
  );
  return file;
}

const psql = (url: string, command: string) =>
  timeProcess(PSQL, [url, '-v', 'ON_ERROR_STOP=1', '-c', command], { PATH: process.env.PATH });

async function auditRows(knex: Knex): Promise<number> {
  const [row] = (await knex('core_audit_event').count({ n: '*' })) as Array<{ n: string }>;
  return Number(row!.n);
}

async function empty(knex: Knex): Promise<void> {
  await knex.raw('truncate patients_patient, migration_import_source_map restart identity cascade');
  await knex.raw('vacuum analyze patients_patient');
}

const perSecond = (rows: number, ms: number) =>
  `${Math.round(rows / (ms / 1000)).toLocaleString('en-US')} rows/s`;
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

async function main(quick: boolean): Promise<void> {
  const db = await scratchDatabase();
  const storage = await scratchDir('ward-bench-import-');
  try {
    await install(db.url, ['migration_import']);
    const rows = 100_000;
    const job = await validatedJob(db.knex, storage, rows);
    let copy = '';
    const executeTimes: number[] = [];
    const unauditedTimes: number[] = [];
    const copyTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await empty(db.knex);
      executeTimes.push((await runWorker(db.url, storage, job.id)).ms);
      if (copy === '')
        copy = `\\copy patients_patient (${COPIED}) from '${await copyFile(db.url, storage, job)}' with (format csv)`;
      await empty(db.knex);
      copyTimes.push(await psql(db.url, copy));
      await empty(db.knex);
      const before = await auditRows(db.knex);
      unauditedTimes.push((await runWorker(db.url, storage, job.id, { audit: false })).ms);
      if ((await auditRows(db.knex)) !== before) throw new Error('the run without the audit trail recorded');
    }
    const [e, c, u] = [median(executeTimes), median(copyTimes), median(unauditedTimes)];
    console.log(
      `execute, ${rows.toLocaleString('en-US')} patients (Synthea CSV): ${(e / 1000).toFixed(2)} s, ${perSecond(rows, e)}; ` +
        `psql \\copy of the same rows: ${(c / 1000).toFixed(2)} s, ${perSecond(rows, c)} -> ${ratio(c, e)} of \\copy's throughput (target >= 0.5x)`,
    );
    console.log(
      `execute without the audit trail: ${(u / 1000).toFixed(2)} s -> audited execute takes ${ratio(e, u)} its time (target <= 1.10x)`,
    );
    for (const count of quick ? [rows] : [rows, 1_000_000]) {
      await empty(db.knex);
      const measured = count === rows ? job : await validatedJob(db.knex, storage, count);
      const report = await runWorker(db.url, storage, measured.id, { memory: true });
      console.log(
        `execute worker, ${count.toLocaleString('en-US')} rows: peak RSS ${mb(report.peakRss)}, live heap at most ${mb(report.liveHeap)} (${(report.ms / 1000).toFixed(1)} s, ${perSecond(count, report.ms)}; target <= 160 MB at 1,000,000 rows)`,
      );
    }
  } finally {
    await db.drop();
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === '--worker') await worker(rest[0]!, rest[1]!, Number(rest[2]), rest[3] === 'memory');
else await main(mode === '--quick');
