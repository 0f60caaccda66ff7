import test from 'ava';
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { isWardError } from '../../../src/errors/ward-error.ts';
import { applySeeds, purgeExternalIds } from '../../../src/applier/seeds/seed.ts';
import type { SeedResult } from '../../../src/applier/seeds/seed.ts';
import { testDatabase } from '../../helpers/database.ts';

interface SeedModule {
  name: string;
  dir: string;
}

type SeedFiles = Record<string, unknown>;

const HINT = (module: string) =>
  `fix the seed file or the migration, then \`ward modules install ${module}\` and restart`;

/** A module directory with `seeds/<name>` for each entry; strings are written as they are. */
async function seedModule(t: ExecutionContext, name: string, files: SeedFiles): Promise<SeedModule> {
  const dir = await mkdtemp(join(tmpdir(), `ward-seed-${name}-`));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await setSeeds({ name, dir }, files);
  return { name, dir };
}

/** Replaces the module's seed files, as an upgrade would. */
async function setSeeds(module: SeedModule, files: SeedFiles): Promise<void> {
  await rm(join(module.dir, 'seeds'), { recursive: true, force: true });
  await mkdir(join(module.dir, 'seeds'));
  for (const [file, content] of Object.entries(files))
    await writeFile(
      join(module.dir, 'seeds', file),
      typeof content === 'string' ? content : JSON.stringify(content, null, 2),
    );
}

const seedFile = (module: SeedModule, file: string): string => join(module.dir, 'seeds', file);

async function createDemoTables(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE demo_status (id serial PRIMARY KEY, code text UNIQUE NOT NULL, label text);
    CREATE TABLE demo_thing (
      id serial PRIMARY KEY,
      code text UNIQUE NOT NULL,
      status_id integer REFERENCES demo_status (id),
      qty integer,
      price numeric(10, 2)
    );`);
}

async function seededDatabase(t: ExecutionContext): Promise<Knex> {
  const { knex } = await testDatabase(t, { migrated: true });
  await createDemoTables(knex);
  return knex;
}

const status = (xmlId: string, label: string | null, noupdate = false) => ({
  xml_id: xmlId,
  table: 'demo_status',
  values: { code: xmlId, label },
  noupdate,
});

const thing = (xmlId: string, statusRef: string | null, qty: number | null = 1) => ({
  xml_id: xmlId,
  table: 'demo_thing',
  values: { code: xmlId, status_id: statusRef === null ? null : { $ref: statusRef }, qty },
});

/** Table contents with keys replaced by codes, so that runs with different ids compare equal. */
async function contents(knex: Knex): Promise<unknown> {
  const statuses = await knex('demo_status').orderBy('code').select('code', 'label');
  const things = await knex('demo_thing as t')
    .leftJoin('demo_status as s', 's.id', 't.status_id')
    .orderBy('t.code')
    .select('t.code', 's.code as status', 't.qty', 't.price');
  return { statuses, things };
}

async function tracking(knex: Knex, module = 'demo'): Promise<unknown[]> {
  return knex('core_external_id')
    .where('module_name', module)
    .orderBy('xml_id')
    .select('module_name', 'xml_id', 'table_name', 'record_id', 'noupdate');
}

const counts = (partial: Partial<SeedResult>): SeedResult => ({
  created: 0,
  updated: 0,
  unchanged: 0,
  kept: 0,
  deleted: 0,
  ...partial,
});

async function seedError(
  t: ExecutionContext,
  run: Promise<unknown>,
): Promise<{ message: string; cause?: unknown }> {
  const error = await t.throwsAsync(run);
  t.true(isWardError(error));
  if (!isWardError(error)) return { message: '' };
  t.is(error.code, 'seed_failed');
  return error;
}

test('first install creates the records and tracks each by xml_id', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    '10_status.json': { records: [status('booked', 'Booked'), status('done', 'Done', true)] },
    '20_thing.json': { records: [thing('chair', 'booked', 4)] },
  });

  t.deepEqual(await applySeeds(knex, demo), counts({ created: 3 }));

  t.deepEqual(await contents(knex), {
    statuses: [
      { code: 'booked', label: 'Booked' },
      { code: 'done', label: 'Done' },
    ],
    things: [{ code: 'chair', status: 'booked', qty: 4, price: null }],
  });
  const ids = Object.fromEntries(
    (await knex('demo_status').select('code', 'id')).map((row: { code: string; id: number }) => [
      row.code,
      String(row.id),
    ]),
  );
  const chair = (await knex('demo_thing').first('id')) as { id: number };
  t.deepEqual(await tracking(knex), [
    {
      module_name: 'demo',
      xml_id: 'booked',
      table_name: 'demo_status',
      record_id: ids.booked,
      noupdate: false,
    },
    {
      module_name: 'demo',
      xml_id: 'chair',
      table_name: 'demo_thing',
      record_id: String(chair.id),
      noupdate: false,
    },
    { module_name: 'demo', xml_id: 'done', table_name: 'demo_status', record_id: ids.done, noupdate: true },
  ]);
});

test('a module without a seeds directory seeds nothing', async (t) => {
  const knex = await seededDatabase(t);
  const dir = await mkdtemp(join(tmpdir(), 'ward-seed-none-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  t.deepEqual(await applySeeds(knex, { name: 'demo', dir }), counts({}));
});

test('a second run changes nothing, not even a row version', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [status('booked', 'Booked'), status('done', null, true), thing('chair', 'booked')],
    },
  });
  await applySeeds(knex, demo);
  const rowVersions = () =>
    knex.raw(
      `SELECT xmin::text, * FROM demo_status UNION ALL SELECT xmin::text, id, code, null FROM demo_thing ORDER BY 2, 3`,
    );
  const before = { rows: (await rowVersions()).rows, tracking: await knex('core_external_id').orderBy('id') };

  t.deepEqual(await applySeeds(knex, demo), counts({ unchanged: 2, kept: 1 }));
  t.deepEqual(
    { rows: (await rowVersions()).rows, tracking: await knex('core_external_id').orderBy('id') },
    before,
  );
});

test('an upgrade updates changed records and keeps noupdate records a user has edited', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [
        status('booked', 'Booked'),
        status('cancelled', 'Cancelled'),
        status('done', 'Done', true),
        {
          ...thing('chair', 'booked', 1),
          values: { code: 'chair', status_id: { $ref: 'booked' }, price: '1.5' },
        },
      ],
    },
  });
  await applySeeds(knex, demo);
  await knex('demo_status').where('code', 'done').update({ label: 'Finished (edited by a user)' });

  await setSeeds(demo, {
    'seeds.json': {
      records: [
        status('booked', 'Booked for a visit'),
        status('cancelled', 'Cancelled'),
        status('done', 'Done!', true),
        // 1.50 is what numeric(10, 2) stores for 1.5: the same value, not a change.
        {
          ...thing('chair', 'booked', 1),
          values: { code: 'chair', status_id: { $ref: 'cancelled' }, price: 1.5 },
        },
      ],
    },
  });
  t.deepEqual(await applySeeds(knex, demo), counts({ updated: 2, unchanged: 1, kept: 1 }));
  t.deepEqual(await contents(knex), {
    statuses: [
      { code: 'booked', label: 'Booked for a visit' },
      { code: 'cancelled', label: 'Cancelled' },
      { code: 'done', label: 'Finished (edited by a user)' },
    ],
    things: [{ code: 'chair', status: 'cancelled', qty: null, price: '1.50' }],
  });
});

test('records dropped from the seeds are deleted, children first, unless noupdate', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [
        status('booked', 'Booked'),
        status('legacy', 'Legacy'),
        status('mine', 'Mine', true),
        thing('old_chair', 'legacy'),
        thing('table', 'booked'),
      ],
    },
  });
  await applySeeds(knex, demo);

  await setSeeds(demo, { 'seeds.json': { records: [status('booked', 'Booked'), thing('table', 'booked')] } });
  t.deepEqual(await applySeeds(knex, demo), counts({ unchanged: 2, kept: 1, deleted: 2 }));
  t.deepEqual(await contents(knex), {
    statuses: [
      { code: 'booked', label: 'Booked' },
      { code: 'mine', label: 'Mine' },
    ],
    things: [{ code: 'table', status: 'booked', qty: 1, price: null }],
  });
  t.deepEqual(
    (await tracking(knex)).map((row) => (row as { xml_id: string }).xml_id),
    ['booked', 'mine', 'table'],
  );
});

test('a dropped record that user data still references stays, tracked, until nothing references it', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': { records: [status('booked', 'Booked'), status('legacy', 'Legacy')] },
  });
  await applySeeds(knex, demo);
  const legacy = (await knex('demo_status').where('code', 'legacy').first('id')) as { id: number };
  await knex('demo_thing').insert({ code: 'users_chair', status_id: legacy.id });

  await setSeeds(demo, { 'seeds.json': { records: [status('booked', 'Booked')] } });
  t.deepEqual(await applySeeds(knex, demo), counts({ unchanged: 1, kept: 1 }));
  t.is((await tracking(knex)).length, 2);

  await knex('demo_thing').delete();
  t.deepEqual(await applySeeds(knex, demo), counts({ unchanged: 1, deleted: 1 }));
  t.deepEqual(((await contents(knex)) as { statuses: unknown }).statuses, [
    { code: 'booked', label: 'Booked' },
  ]);
});

test('a record whose row was deleted is inserted again; a changed noupdate flag is recorded', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': { records: [status('booked', 'Booked'), status('done', 'Done')] },
  });
  await applySeeds(knex, demo);
  await knex('demo_status').where('code', 'booked').delete();

  await setSeeds(demo, {
    'seeds.json': { records: [status('booked', 'Booked'), status('done', 'Done', true)] },
  });
  t.deepEqual(await applySeeds(knex, demo), counts({ created: 1, kept: 1 }));
  const booked = (await knex('demo_status').where('code', 'booked').first('id')) as { id: number };
  t.like(await knex('core_external_id').where('xml_id', 'booked').first(), { record_id: String(booked.id) });
  t.like(await knex('core_external_id').where('xml_id', 'done').first(), { noupdate: true });
});

test('a record moved to another table is inserted there and its old row deleted', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', { 'seeds.json': { records: [status('chair', 'Chair')] } });
  await applySeeds(knex, demo);

  await setSeeds(demo, { 'seeds.json': { records: [thing('chair', null, 2)] } });
  t.deepEqual(await applySeeds(knex, demo), counts({ created: 1 }));
  t.deepEqual(await contents(knex), {
    statuses: [],
    things: [{ code: 'chair', status: null, qty: 2, price: null }],
  });
  t.like((await tracking(knex))[0], { xml_id: 'chair', table_name: 'demo_thing' });
});

test('$ref resolves to records of the same module whatever the file order, and of other modules', async (t) => {
  const knex = await seededDatabase(t);
  await knex.raw('CREATE TABLE other_kind (id bigserial PRIMARY KEY, name text)');
  await knex.raw('ALTER TABLE demo_thing ADD COLUMN kind_id bigint REFERENCES other_kind (id)');
  const other = await seedModule(t, 'other', {
    'kinds.json': { records: [{ xml_id: 'furniture', table: 'other_kind', values: { name: 'Furniture' } }] },
  });
  t.deepEqual(await applySeeds(knex, other), counts({ created: 1 }));

  const demo = await seedModule(t, 'demo', {
    // Things come first in file order; they are written after the statuses they reference.
    '10_things.json': {
      records: [
        {
          ...thing('chair', 'demo.booked'),
          values: { code: 'chair', status_id: { $ref: 'demo.booked' }, kind_id: { $ref: 'other.furniture' } },
        },
      ],
    },
    '20_statuses.json': { records: [status('booked', 'Booked')] },
  });
  t.deepEqual(await applySeeds(knex, demo), counts({ created: 2 }));
  const row = await knex('demo_thing as t')
    .join('demo_status as s', 's.id', 't.status_id')
    .join('other_kind as k', 'k.id', 't.kind_id')
    .first('s.code as status', 'k.name as kind');
  t.deepEqual(row, { status: 'booked', kind: 'Furniture' });
});

test('inserts and updates go in batches, one statement per batch', async (t) => {
  const knex = await seededDatabase(t);
  const records = Array.from({ length: 25 }, (_, index) => status(`s${index}`, `Status ${index}`));
  const demo = await seedModule(t, 'demo', { 'seeds.json': { records } });
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  knex.on('query', listener);
  t.teardown(() => void knex.off('query', listener));

  t.deepEqual(await applySeeds(knex, demo, { batchSize: 10 }), counts({ created: 25 }));
  t.is(statements.filter((sql) => sql.includes('INSERT INTO "demo_status"')).length, 3);

  statements.length = 0;
  await setSeeds(demo, {
    'seeds.json': {
      records: records.map((record) => ({ ...record, values: { ...record.values, label: 'x' } })),
    },
  });
  t.deepEqual(await applySeeds(knex, demo, { batchSize: 10 }), counts({ updated: 25 }));
  t.is(statements.filter((sql) => sql.includes('UPDATE "demo_status"')).length, 3);
});

test('a failing record names module, file and xml_id, and leaves nothing behind when its transaction rolls back', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [
        status('booked', 'Booked'),
        status('done', 'Done'),
        thing('chair', 'booked'),
        { ...thing('bad', 'done'), values: { code: 'bad', qty: 'many' } },
      ],
    },
  });
  const error = await seedError(
    t,
    knex.transaction((trx) => applySeeds(trx, demo, { batchSize: 1000 })),
  );
  t.is(
    error.message,
    `module demo: seed record "bad" (${seedFile(demo, 'seeds.json')} at /records/3) failed: invalid input syntax for type integer: "many"`,
  );
  t.is((error as { hint?: string }).hint, HINT('demo'));
  t.is((error.cause as { code?: string }).code, '22P02');
  t.deepEqual(await contents(knex), { statuses: [], things: [] });
  t.deepEqual(await tracking(knex), []);
});

test('the record at fault is named even when it fails only together with the rest of its batch', async (t) => {
  const knex = await seededDatabase(t);
  const records = Array.from({ length: 9 }, (_, index) => status(`s${index}`, `Status ${index}`));
  records[6] = { ...records[6]!, values: { code: 's2', label: 'Same code as s2' } };
  const demo = await seedModule(t, 'demo', { 'seeds.json': { records } });
  const error = await seedError(
    t,
    knex.transaction((trx) => applySeeds(trx, demo)),
  );
  t.is(
    error.message,
    `module demo: seed record "s6" (${seedFile(demo, 'seeds.json')} at /records/6) failed: duplicate key value violates unique constraint "demo_status_code_key"`,
  );
});

test('a run after a crash that committed part of the work converges', async (t) => {
  const knex = await seededDatabase(t);
  const good = Array.from({ length: 7 }, (_, index) => status(`s${index}`, `Status ${index}`));
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [...good, { ...thing('chair', 's1'), values: { code: null } }, thing('table', 's2')],
    },
  });
  // Without a transaction each batch commits on its own, as after a crash mid-step.
  const error = await seedError(t, applySeeds(knex, demo, { batchSize: 3 }));
  t.regex(
    error.message,
    /seed record "chair" .* failed: null value in column "code" of relation "demo_thing"/,
  );
  t.is(
    await knex('demo_status')
      .count('* as n')
      .first()
      .then((row) => Number(row!.n)),
    7,
  );

  await setSeeds(demo, { 'seeds.json': { records: [...good, thing('chair', 's1'), thing('table', 's2')] } });
  t.deepEqual(await applySeeds(knex, demo, { batchSize: 3 }), counts({ created: 2, unchanged: 7 }));

  const { knex: fresh } = await testDatabase(t, { migrated: true });
  await createDemoTables(fresh);
  await applySeeds(fresh, demo);
  t.deepEqual(await contents(knex), await contents(fresh));
});

test('tables and columns are checked against the database before anything is written', async (t) => {
  const knex = await seededDatabase(t);
  await knex.raw('CREATE TABLE demo_log (at timestamptz, message text)');
  await knex.raw('CREATE TABLE demo_link (a int, b int, PRIMARY KEY (a, b))');
  const demo = await seedModule(t, 'demo', {
    'a.json': {
      records: [
        status('booked', 'Booked'),
        { xml_id: 'nowhere', table: 'demo_nowhere', values: { code: 'x' } },
        { xml_id: 'nowhere_too', table: 'demo_nowhere', values: { code: 'y' } },
        { xml_id: 'colour', table: 'demo_status', values: { code: 'c', colour: 'red' } },
        { xml_id: 'log', table: 'demo_log', values: { message: 'hello' } },
        { xml_id: 'link', table: 'demo_link', values: { a: 1, b: 2 } },
        {
          xml_id: 'patient_thing',
          table: 'demo_thing',
          values: { code: 'p', status_id: { $ref: 'patients.nobody' } },
        },
      ],
    },
  });
  const error = await seedError(t, applySeeds(knex, demo));
  const file = seedFile(demo, 'a.json');
  t.is(
    error.message,
    [
      'module demo has invalid seeds:',
      `  ${file} at /records/1/table: record "nowhere": table demo_nowhere does not exist`,
      `  ${file} at /records/3/values/colour: record "colour": table demo_status has no column colour`,
      `  ${file} at /records/4/table: record "log": table demo_log has no primary key; seeds track their rows by a single-column primary key`,
      `  ${file} at /records/5/table: record "link": table demo_link has a primary key of 2 columns (a, b); seeds track their rows by a single-column primary key`,
      `  ${file} at /records/6/values/status_id/$ref: record "patient_thing": module patients has no installed seed record "nobody"`,
    ].join('\n'),
  );
  t.deepEqual(await tracking(knex), []);
});

test('invalid seed files are reported together, with file and JSON path', async (t) => {
  const knex = await seededDatabase(t);
  const demo = await seedModule(t, 'demo', {
    '1.json': '{ "records": [ }',
    '2.json': {
      records: [
        { ...status('a', 'A'), table: 'patients_patient' },
        { ...status('b', 'B'), noupdate: 1 },
      ],
    },
  });
  const error = await seedError(t, applySeeds(knex, demo));
  t.is(
    error.message,
    [
      'module demo has invalid seeds:',
      `  ${seedFile(demo, '1.json')}: is not valid JSON: Unexpected token '}' at line 1, column 16`,
      `  ${seedFile(demo, '2.json')} at /records/1/noupdate: must be a boolean`,
    ].join('\n'),
  );
  t.is((error as { hint?: string }).hint, HINT('demo'));
});

test('purgeExternalIds deletes the records of the module, children first, and their tracking rows; again is harmless', async (t) => {
  const knex = await seededDatabase(t);
  await knex.raw('CREATE TABLE other_kind (id bigserial PRIMARY KEY, name text)');
  const other = await seedModule(t, 'other', {
    'kinds.json': { records: [{ xml_id: 'furniture', table: 'other_kind', values: { name: 'Furniture' } }] },
  });
  await applySeeds(knex, other);
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [
        status('booked', 'Booked'),
        status('done', 'Done', true),
        thing('chair', 'booked'),
        thing('desk', 'done'),
      ],
    },
  });
  await applySeeds(knex, demo);
  await knex('demo_thing').where('code', 'desk').delete();

  t.deepEqual(await purgeExternalIds(knex, 'demo'), { deleted: 4, kept: 0 });
  t.deepEqual(await contents(knex), { statuses: [], things: [] });
  t.deepEqual(await tracking(knex), []);
  t.is((await tracking(knex, 'other')).length, 1);
  t.is((await knex('other_kind').count('* as n').first())!.n, '1');

  t.deepEqual(await purgeExternalIds(knex, 'demo'), { deleted: 0, kept: 0 });
});

test('purgeExternalIds keeps rows user data still references, and forgets every tracking row', async (t) => {
  const knex = await seededDatabase(t);
  await knex.raw('CREATE TABLE demo_note (id serial PRIMARY KEY, body text)');
  const demo = await seedModule(t, 'demo', {
    'seeds.json': {
      records: [status('booked', 'Booked'), { xml_id: 'hello', table: 'demo_note', values: { body: 'hi' } }],
    },
  });
  await applySeeds(knex, demo);
  await knex.raw('DROP TABLE demo_note');
  const booked = (await knex('demo_status').first('id')) as { id: number };
  await knex('demo_thing').insert({ code: 'users_chair', status_id: booked.id });

  t.deepEqual(await purgeExternalIds(knex, 'demo'), { deleted: 1, kept: 1 });
  t.deepEqual(await tracking(knex), []);
  t.is(
    (await knex('demo_status').count<{ count: string }[]>('* as count'))[0]?.count,
    '1',
    'the referenced row stays',
  );
});

/** A seed set over a few fixed xml_ids; things reference statuses of the same set. */
const seedSetArbitrary = fc
  .record({
    statuses: fc.dictionary(fc.constantFrom('s0', 's1', 's2', 's3'), fc.option(fc.string({ maxLength: 4 })), {
      maxKeys: 4,
    }),
    things: fc.dictionary(
      fc.constantFrom('t0', 't1', 't2', 't3'),
      fc.record({ status: fc.nat(), qty: fc.option(fc.integer({ min: -5, max: 5 })) }),
      { maxKeys: 4 },
    ),
    split: fc.nat(),
  })
  .map(({ statuses, things, split }) => {
    const statusIds = Object.keys(statuses);
    const records = [
      ...Object.entries(things).map(([xmlId, { status: pick, qty }]) =>
        thing(xmlId, statusIds.length === 0 ? null : statusIds[pick % statusIds.length]!, qty),
      ),
      ...Object.entries(statuses).map(([xmlId, label]) => status(xmlId, label)),
    ];
    const cut = records.length === 0 ? 0 : split % records.length;
    return { 'a.json': { records: records.slice(0, cut) }, 'b.json': { records: records.slice(cut) } };
  });

test('applying seeds S1 then S2 leaves the same rows as applying S2 on a fresh database', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  const demo = await seedModule(t, 'demo', {});
  const reset = async () => {
    await knex.raw('DROP TABLE IF EXISTS demo_thing, demo_status');
    await knex('core_external_id').delete();
    await createDemoTables(knex);
  };
  await fc.assert(
    fc.asyncProperty(seedSetArbitrary, seedSetArbitrary, async (first, second) => {
      await reset();
      await setSeeds(demo, first);
      await applySeeds(knex, demo, { batchSize: 2 });
      await setSeeds(demo, second);
      await applySeeds(knex, demo, { batchSize: 2 });
      const upgraded = { rows: await contents(knex), tracked: await tracking(knex) };

      await reset();
      await applySeeds(knex, demo, { batchSize: 2 });
      const fresh = { rows: await contents(knex), tracked: await tracking(knex) };
      const withoutIds = (tracked: unknown[]) =>
        tracked.map((row) => ({ ...(row as object), record_id: undefined }));
      return (
        JSON.stringify(upgraded.rows) === JSON.stringify(fresh.rows) &&
        JSON.stringify(withoutIds(upgraded.tracked)) === JSON.stringify(withoutIds(fresh.tracked))
      );
    }),
    { numRuns: 40 },
  );
  t.pass();
});
