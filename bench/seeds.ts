/**
 * Times applySeeds installing 100,000 seed records against a raw batched INSERT of the same rows
 * (knex, 1,000 rows per statement), each into a fresh scratch database on the same server, each in
 * one transaction as the seed step runs. Target: ward within 1.5x of the raw insert. The two
 * alternate, and each reports its best round: other work on the machine only ever adds time.
 * Asserts nothing, so a slow machine reports rather than fails.
 *
 *   node bench/seeds.ts
 *
 * The server is DATABASE_URL's, or the embedded one the tests use (storage/test), never the
 * developer's data; the scratch databases are dropped at the end.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { applySeeds } from '../src/applier/seeds/seed.ts';
import { migrateCore } from '../src/db/migrate.ts';
import { scratchDatabase } from './lib.ts';
import type { ScratchDatabase } from './lib.ts';

const RECORDS = 100_000;
const FILES = 4;
const BATCH = 1000;
const ROUNDS = 5;
const TARGET = 1.5;

interface Item {
  code: string;
  label: string;
  price: number;
  active: boolean;
}

const items: Item[] = Array.from({ length: RECORDS }, (_, index) => ({
  code: `ITEM-${String(index).padStart(6, '0')}`,
  label: `Item number ${index}`,
  price: (index % 100_000) / 100,
  active: index % 3 !== 0,
}));

const CREATE_TABLE =
  'CREATE TABLE bench_item (id bigserial PRIMARY KEY, code text UNIQUE, label text, price numeric, active boolean)';

async function moduleDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ward-bench-seeds-'));
  await mkdir(path.join(dir, 'seeds'));
  const perFile = Math.ceil(RECORDS / FILES);
  for (let file = 0; file < FILES; file++) {
    const records = items
      .slice(file * perFile, (file + 1) * perFile)
      .map((item) => ({ xml_id: item.code.toLowerCase(), table: 'bench_item', values: item }));
    await writeFile(path.join(dir, 'seeds', `${file}0_items.json`), JSON.stringify({ records }));
  }
  return dir;
}

/** A new database with bench_item (and the core schema when `core`); dropped when `drop` runs. */
async function scratch(core: boolean): Promise<ScratchDatabase> {
  const db = await scratchDatabase({ pool: 2 });
  if (core) await migrateCore(db.knex);
  await db.knex.raw(CREATE_TABLE);
  return db;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

const dir = await moduleDir();
const ward: number[] = [];
const raw: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const seeded = await scratch(true);
    try {
      ward.push(await timed(() => seeded.knex.transaction((trx) => applySeeds(trx, { name: 'bench', dir }))));
      const count = await seeded.knex('bench_item').count('* as n').first();
      if (Number(count?.n) !== RECORDS) throw new Error(`ward seeded ${String(count?.n)} rows`);
    } finally {
      await seeded.drop();
    }
    const plain = await scratch(false);
    try {
      raw.push(
        await timed(() =>
          plain.knex.transaction(async (trx) => {
            for (let start = 0; start < RECORDS; start += BATCH)
              await trx('bench_item').insert(items.slice(start, start + BATCH));
          }),
        ),
      );
    } finally {
      await plain.drop();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const wardSeconds = Math.min(...ward);
const rawSeconds = Math.min(...raw);
console.log(
  `seeds ${RECORDS.toLocaleString('en-US')} records: ward ${wardSeconds.toFixed(2)} s, raw batched insert ${rawSeconds.toFixed(2)} s -> ${(wardSeconds / rawSeconds).toFixed(2)}x (target <= ${TARGET}x; best of ${ROUNDS} rounds)`,
);
