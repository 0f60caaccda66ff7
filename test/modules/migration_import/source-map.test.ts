/**
 * The import mapping on its own: what a batch's write of it changes, the job it names (checked
 * once per batch, and let go when the job is deleted), and the lookup a batch takes with its
 * source system's lock.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { lockSourceSystem } from '../../../modules/migration_import/lib/jobs/batch-writer.ts';
import { insertJob } from '../../../modules/migration_import/lib/jobs/job-store.ts';
import { LostLease } from '../../../modules/migration_import/lib/jobs/lease.ts';
import {
  lockedWardIds,
  SOURCE_MAP,
  upsertMappings,
  wardIds,
} from '../../../modules/migration_import/lib/jobs/source-map.ts';
import { importDatabase } from './world.ts';

const SYSTEM = 'old-clinic';

async function newJob(knex: Knex): Promise<number> {
  const row = await knex.transaction((trx) =>
    insertJob(trx, {
      sourceSystem: SYSTEM,
      format: 'synthea-patients-csv',
      sourceBytes: 1,
      sourceSha256: '0'.repeat(64),
      createdById: 0,
      createdBy: 'test',
    }),
  );
  return row.id;
}

interface MapRow {
  source_id: string;
  ward_id: number;
  job_id: number | null;
  updated_at: Date;
}

const mappings = async (knex: Knex): Promise<MapRow[]> =>
  (await knex(SOURCE_MAP)
    .select('source_id', 'ward_id', 'job_id', 'updated_at')
    .orderBy('source_id')) as MapRow[];

const write = (knex: Knex, jobId: number, pairs: Array<{ sourceId: string; wardId: number }>) =>
  knex.transaction((trx) => upsertMappings(trx, { sourceSystem: SYSTEM, jobId }, 'patient', pairs));

test('a mapping that says what it already said is not rewritten; a new Ward record or job rewrites it', async (t) => {
  const { knex } = await importDatabase(t);
  const [first, second] = [await newJob(knex), await newJob(knex)];
  await write(knex, first, [
    { sourceId: 'a', wardId: 1 },
    { sourceId: 'b', wardId: 2 },
    { sourceId: 'c', wardId: 3 },
  ]);
  const long = new Date('2020-01-01T00:00:00Z');
  await knex(SOURCE_MAP).update({ updated_at: long });

  await write(knex, first, [
    { sourceId: 'a', wardId: 1 },
    { sourceId: 'b', wardId: 20 },
  ]);
  await write(knex, second, [{ sourceId: 'c', wardId: 3 }]);

  const rows = await mappings(knex);
  t.deepEqual(
    rows.map(({ source_id, ward_id, job_id }) => [source_id, ward_id, job_id]),
    [
      ['a', 1, first],
      ['b', 20, first],
      ['c', 3, second],
    ],
  );
  t.deepEqual(rows[0]!.updated_at, long);
  t.true(rows[1]!.updated_at > long);
  t.true(rows[2]!.updated_at > long);
});

test('mapping for a job that no longer exists throws LostLease and writes nothing', async (t) => {
  const { knex } = await importDatabase(t);
  const job = await newJob(knex);
  await knex('migration_import_job').where({ id: job }).delete();
  await t.throwsAsync(write(knex, job, [{ sourceId: 'a', wardId: 1 }]), { instanceOf: LostLease });
  t.deepEqual(await mappings(knex), []);
});

test("deleting a job keeps its mappings without a job, as the foreign key's on delete set null did", async (t) => {
  const { knex } = await importDatabase(t);
  const [gone, kept] = [await newJob(knex), await newJob(knex)];
  await write(knex, gone, [{ sourceId: 'a', wardId: 1 }]);
  await write(knex, kept, [{ sourceId: 'b', wardId: 2 }]);

  await knex('migration_import_job').where({ id: gone }).delete();

  t.deepEqual(
    (await mappings(knex)).map(({ source_id, ward_id, job_id }) => [source_id, ward_id, job_id]),
    [
      ['a', 1, null],
      ['b', 2, kept],
    ],
  );
});

test('truncating the jobs keeps their mappings without a job; a delete under an older snapshot is refused', async (t) => {
  const { knex } = await importDatabase(t);
  const job = await newJob(knex);
  await write(knex, job, [{ sourceId: 'a', wardId: 1 }]);

  const error = await t.throwsAsync(
    knex.transaction((trx) => trx('migration_import_job').where({ id: job }).delete(), {
      isolationLevel: 'repeatable read',
    }),
  );
  t.regex(error.message, /read committed/);
  t.is((await mappings(knex))[0]?.job_id, job, 'the refused delete changed nothing');

  await knex.raw('truncate migration_import_job cascade');
  t.deepEqual(
    (await mappings(knex)).map(({ source_id, job_id }) => [source_id, job_id]),
    [['a', null]],
  );
});

test('a job cannot be deleted while a batch that mapped records for it is open; its mappings then lose the job', async (t) => {
  const { knex } = await importDatabase(t);
  const job = await newJob(knex);
  const batch = await knex.transaction();
  try {
    await upsertMappings(batch, { sourceSystem: SYSTEM, jobId: job }, 'patient', [
      { sourceId: 'a', wardId: 1 },
    ]);
    const deleting = knex('migration_import_job').where({ id: job }).delete();
    const deleted = deleting.then((count) => count);
    await waitFor(knex, "wait_event_type = 'Lock' and query like 'delete from \"migration_import_job\"%'");
    await batch.commit();
    t.is(await deleted, 1);
  } finally {
    if (!batch.isCompleted()) await batch.rollback();
  }
  t.deepEqual(
    (await mappings(knex)).map(({ source_id, job_id }) => [source_id, job_id]),
    [['a', null]],
  );
});

test("a batch's lookup waits for the batch holding its source system's lock and sees what it mapped", async (t) => {
  const { knex } = await importDatabase(t);
  const job = await newJob(knex);
  const holder = await knex.transaction();
  try {
    await lockSourceSystem(holder, SYSTEM);
    await upsertMappings(holder, { sourceSystem: SYSTEM, jobId: job }, 'patient', [
      { sourceId: 'a', wardId: 7 },
    ]);
    const looked = knex.transaction((trx) => lockedWardIds(trx, SYSTEM, 'patient', ['a', 'b', 'a']));
    await waitFor(knex, "wait_event_type = 'Lock' and query like '%migration_import_locked_ward_ids%'");
    await holder.commit();
    t.deepEqual([...(await looked)], [['a', 7]]);
  } finally {
    if (!holder.isCompleted()) await holder.rollback();
  }
  t.deepEqual([...(await wardIds(knex, SYSTEM, 'patient', ['b', 'a']))], [['a', 7]]);
});

/** Until a session of this database matches `condition` in pg_stat_activity. */
async function waitFor(knex: Knex, condition: string): Promise<void> {
  for (;;) {
    const found = (await knex.raw(
      `select 1 from pg_stat_activity where datname = current_database() and ${condition}`,
    )) as { rows: unknown[] };
    if (found.rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
