/**
 * migration_import's execute against `psql \copy` of the same rows into the same table, in the
 * same run: 100,000 patients generated in Synthea's patients.csv layout (the fixture generator's
 * `syntheaPatientsCsv`), validated, then executed by the real execute engine in a child process
 * of its own, whose peak memory is sampled; the baseline copies the very values execute writes
 * (mrn, names, birth date, sex, address) into `patients_patient`, indexes included. Each side
 * runs three times on an emptied table, alternating; medians are compared (target >= 0.25x).
 * Then the worker's peak memory at 100,000 and 1,000,000 rows (target: flat).
 *
 *   node bench/import.ts            # 100k ratio, memory at 100k and 1M
 *   node bench/import.ts --quick    # 100k only
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { formatCsvRow, importRules } from '../modules/migration_import/lib/index.ts';
import { executeRun } from '../modules/migration_import/lib/jobs/execute-run.ts';
import type { JobRow } from '../modules/migration_import/lib/jobs/job-row.ts';
import { claimExecute, claimValidate, insertJob } from '../modules/migration_import/lib/jobs/job-store.ts';
import { Lease } from '../modules/migration_import/lib/jobs/lease.ts';
import { peers } from '../modules/migration_import/lib/jobs/peers.ts';
import { sourceRecords } from '../modules/migration_import/lib/jobs/records.ts';
import { receiveSource } from '../modules/migration_import/lib/jobs/source-file.ts';
import { sdk as wardSdk } from '../src/sdk/runtime.ts';
import { validateRun } from '../modules/migration_import/lib/jobs/validate-run.ts';
import { syntheaPatientsCsv } from '../scripts/generate-import-fixtures.ts';
import { install, officialSdk } from '../test/helpers/app.ts';
import { scratchDir } from '../test/helpers/cli.ts';
import { median, NODE, ratio, scratchDatabase, timeProcess } from './lib.ts';

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

function runWorker(url: string, storage: string, id: number, memory = false): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const args = [import.meta.filename, '--worker', url, storage, String(id), memory ? 'memory' : 'time'];
    const child = spawn(NODE, memory ? ['--expose-gc', ...args] : args, {
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

/** The values execute writes for each row, as a CSV file for `\copy`. */
async function copyFile(knex: Knex, storage: string, job: JobRow): Promise<string> {
  const file = path.join(storage, `copy-${job.id}.csv`);
  const out = createWriteStream(file);
  const rules = importRules(peers(await officialSdk(knex, storage, 'migration_import')));
  for await (const item of sourceRecords(storage, job, { rules, acrossRecords: false })) {
    if (item.kind !== 'patient') continue;
    const { record } = item;
    const address = record.address && {
      line: record.address.lines,
      city: record.address.city,
      state: record.address.state,
      postalCode: record.address.postalCode,
    };
    const line = formatCsvRow([
      record.mrn ?? record.sourceId,
      record.familyName,
      record.givenName,
      record.birthDate,
      record.sex,
      address ? JSON.stringify(address) : '',
    ]);
    if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end();
  await finished(out);
  return file;
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
    const file = await copyFile(db.knex, storage, job);
    const copy = `\\copy patients_patient (mrn, family_name, given_name, birth_date, sex, address) from '${file}' with (format csv)`;
    const executeTimes: number[] = [];
    const copyTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await empty(db.knex);
      executeTimes.push((await runWorker(db.url, storage, job.id)).ms);
      await empty(db.knex);
      copyTimes.push(
        await timeProcess(PSQL, [db.url, '-v', 'ON_ERROR_STOP=1', '-c', copy], { PATH: process.env.PATH }),
      );
    }
    const [e, c] = [median(executeTimes), median(copyTimes)];
    console.log(
      `execute, ${rows.toLocaleString('en-US')} patients (Synthea CSV): ${(e / 1000).toFixed(2)} s, ${perSecond(rows, e)}; ` +
        `psql \\copy of the same rows: ${(c / 1000).toFixed(2)} s, ${perSecond(rows, c)} -> ${ratio(c, e)} of \\copy's throughput (target >= 0.25x)`,
    );
    for (const count of quick ? [rows] : [rows, 1_000_000]) {
      await empty(db.knex);
      const measured = count === rows ? job : await validatedJob(db.knex, storage, count);
      const report = await runWorker(db.url, storage, measured.id, true);
      console.log(
        `execute worker, ${count.toLocaleString('en-US')} rows: peak RSS ${mb(report.peakRss)}, live heap at most ${mb(report.liveHeap)} (${(report.ms / 1000).toFixed(1)} s, ${perSecond(count, report.ms)})`,
      );
    }
  } finally {
    await db.drop();
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === '--worker') await worker(rest[0]!, rest[1]!, Number(rest[2]), rest[3] === 'memory');
else await main(mode === '--quick');
