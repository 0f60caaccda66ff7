import { execFile } from 'node:child_process';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { appendOnConnection } from '../../src/audit/record.ts';
import { verifyChain } from '../../src/audit/verify.ts';
import { WardError } from '../../src/errors/ward-error.ts';
import { latestBackup, restoreBackup } from '../../src/backup/restore.ts';
import { backupFileName, backupTables } from '../../src/backup/backup.ts';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

const run = promisify(execFile);
const NOW = new Date('2026-03-04T05:06:07.890Z');

/** Every type whose text form could trip a backup up; `shout` is generated, so it is never written. */
const TRICKY_SCHEMA = `
  CREATE TYPE mood AS ENUM ('calm', 'it''s "complicated"', 'ünïcödé 🙂', 'with,comma');
  CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0);
  CREATE DOMAIN email AS text CHECK (VALUE LIKE '%@%');
  CREATE TYPE address AS (street text, zip text);
  CREATE TABLE tricky (
    id integer PRIMARY KEY,
    txt text, vc varchar(40), ch char(6), raw bytea, doc json, docb jsonb,
    tags text[], grid integer[], matrix integer[][],
    amount numeric, fixed numeric(12,4), f8 double precision, f4 real,
    ts timestamp, tstz timestamptz, day date, clock time, clocktz timetz, span interval,
    flag boolean, feeling mood, feelings mood[], count positive_int, contact email,
    uid uuid, ip inet, net cidr, mac macaddr, bits bit varying(16),
    ints int4range, period tstzrange, spot point, markup xml, price money,
    big bigint, small smallint, words tsvector, home address, homes address[],
    shout text GENERATED ALWAYS AS (upper(txt)) STORED
  );`;

const TRICKY_ROWS = `
  INSERT INTO tricky (id) VALUES (1);
  INSERT INTO tricky (id, txt, vc, ch, raw, doc, docb, tags, grid, matrix, amount, fixed, f8, f4,
    ts, tstz, day, clock, clocktz, span, flag, feeling, feelings, count, contact, uid, ip, net, mac,
    bits, ints, period, spot, markup, price, big, small, words, home, homes) VALUES
  (2, E'it''s a \\\\ back\\\\slash, a "quote", tab\\there, new\\nline, CR\\rLF\\r\\n, \\\\N, \\\\\\\\N, \\\\x41',
   'O''Brien; DROP TABLE tricky; --', 'ab', '\\x00ff5c27220a0d'::bytea,
   '{"a": 1,  "a": 2, "nul": "\\u0000", "s": "it''s"}',
   '{"big": 123456789012345678901234567890.123456789, "nested": {"arr": [1, "two", null, true]}, "q": "it''s \\"q\\""}',
   ARRAY['a,b', 'c"d', NULL, 'NULL', '', ' lead', E'back\\\\slash', '{braces}', E'multi\\nline', '🩺'],
   '{1,NULL,3}', '[0:1][-1:0]={{1,2},{3,4}}',
   123456789012345678901234567890.123456789012345678901234567890, 1.5, 0.1, 0.1,
   '2024-02-29 23:59:59.999999', '2024-03-31 02:30:00+02', '0001-01-01 BC', '24:00:00', '12:34:56.789+05:45',
   '1 year 2 mons 3 days 04:05:06.789', true, 'it''s "complicated"', ARRAY['calm', 'with,comma', 'ünïcödé 🙂']::mood[],
   42, 'a@b', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2001:db8::1/64', '10.0.0.0/8', '08:00:2b:01:02:03',
   B'1010', '[1,5)', '[2024-01-01 00:00+00,infinity)', '(1.5,-2.25)', '<a b="c">d &amp; e</a>', 1234.56,
   9223372036854775807, -32768, $$'it''s' a:1 fat:2$$, ROW(E'1 "Main" St, Apt\\\\2', NULL), ARRAY[ROW('x', 'y')::address, NULL]),
  (3, '', ' ', '', ''::bytea, '[]', '{}', '{}', ARRAY[]::integer[], NULL, 'NaN', -0.0001, 'NaN', 'Infinity',
   'infinity', '-infinity', 'infinity', '00:00:00', '23:59:59.999999-15:59', '-178000000 years', false, 'calm', '{}',
   1, '🙂@example.org', '00000000-0000-0000-0000-000000000000', '0.0.0.0', '::/0', '00:00:00:00:00:00', B'',
   'empty', '(,)', '(0,0)', '', 0, -9223372036854775808, 32767, '', ROW(NULL, NULL), '{}'),
  (4, E'\\uFEFFstarts with a BOM, \\u2028 line separator, \\x01 control, \\x7f delete, é e\\u0301, 👩🏽‍⚕️',
   E'tab\\tonly', 'x', '\\x5c5c'::bytea, '"just a string"', '[1e-5, 1.0, -0]', ARRAY['"', '\\', ',', '{', '}', ' '],
   '{{1,2},{3,4}}', '{{{1}}}', 'Infinity', 99999999.9999, '-0', '1.17549435e-38',
   '294276-12-31 23:59:59.999999', 'infinity', '-infinity', '23:59:59.999999', '00:00:00+15:59', '1 mon -1 days -00:00:00.000001',
   NULL, 'with,comma', ARRAY[NULL, 'calm']::mood[], 2147483647, 'x@y', NULL, '::ffff:1.2.3.4', '2001:db8::/32', NULL,
   B'1111111111111111', '[,)', '(,2024-01-01 00:00+00]', '(1e-300,-1e300)', '<!-- c --><x/>text', -0.01,
   NULL, NULL, 'a:1A,2B', NULL, NULL),
  (5, E'\\\\', E'\\'', NULL, '\\x'::bytea, 'null', 'null', ARRAY[NULL]::text[], NULL, NULL, '-Infinity', 0, 1e308, 3.4028235e38,
   '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00+00 BC', '5874897-12-31', NULL, NULL, '-1 days +02:00:00',
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (6, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '1e-130', NULL, 5e-324, -1.4e-45,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL);`;

/** A module's tables: serial and identity ids, and a chain of foreign keys three deep. */
const CLINIC_SCHEMA = `
  CREATE TABLE patient (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE visit (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    patient_id integer NOT NULL REFERENCES patient (id),
    note text
  );
  CREATE TABLE prescription (id serial PRIMARY KEY, visit_id bigint NOT NULL REFERENCES visit (id), drug text);
  CREATE TABLE unused (id serial PRIMARY KEY);`;

const CLINIC_ROWS = `
  INSERT INTO patient (name) VALUES ('Ann'), ('Bob'), ('Cy'), ('gone');
  DELETE FROM patient WHERE name = 'gone';
  INSERT INTO visit (patient_id, note) VALUES (1, 'first'), (1, NULL), (2, 'x'), (3, 'y'), (3, 'z');
  INSERT INTO prescription (visit_id, drug) VALUES (1, 'aspirin'), (5, 'ibuprofen');`;

const CLINIC_TABLES = ['prescription', 'visit', 'patient', 'unused'];

/** Two tables that reference each other and one that references itself, rows pointing both ways. */
const CYCLIC_SCHEMA = `
  CREATE TABLE ward_a (id integer PRIMARY KEY, b_id integer);
  CREATE TABLE ward_b (id integer PRIMARY KEY, a_id integer REFERENCES ward_a (id));
  ALTER TABLE ward_a ADD FOREIGN KEY (b_id) REFERENCES ward_b (id);
  CREATE TABLE staff (id integer PRIMARY KEY, manager_id integer REFERENCES staff (id));`;

const CYCLIC_ROWS = `
  INSERT INTO ward_a VALUES (1, NULL);
  INSERT INTO ward_b VALUES (1, 1);
  UPDATE ward_a SET b_id = 1;
  INSERT INTO staff SELECT i, NULL FROM generate_series(1, 1200) AS i;
  UPDATE staff SET manager_id = CASE WHEN id = 1200 THEN NULL ELSE id + 1 END;`;

async function database(t: ExecutionContext, ...scripts: string[]): Promise<{ url: string; knex: Knex }> {
  const db = await testDatabase(t);
  for (const script of scripts) await db.knex.raw(script);
  return db;
}

/** Each row as record text and as json: equal results mean equal values, column by column. */
async function contents(knex: Knex, tables: readonly string[]): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const table of tables) {
    const { rows } = await knex.raw<{ rows: unknown[] }>(
      `SELECT t::text AS text, row_to_json(t)::text AS json FROM ${table} t ORDER BY id`,
    );
    result[table] = rows;
  }
  return result;
}

/** The next id each serial or identity column would hand out (consumes one value). */
async function nextIds(knex: Knex): Promise<Record<string, string>> {
  const { rows } = await knex.raw<{ rows: Array<{ name: string; next: string }> }>(
    `SELECT c.relname AS name, nextval(c.oid::regclass)::text AS next
       FROM pg_class c WHERE c.relkind = 'S' ORDER BY c.relname`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.next]));
}

async function psqlRestore(url: string, file: string): Promise<void> {
  await run('psql', [url, '-v', 'ON_ERROR_STOP=1', '-f', file], { maxBuffer: 64 << 20 });
}

async function backupFile(t: ExecutionContext, module = 'clinic'): Promise<string> {
  return path.join(await scratchDir('ward-backup-'), backupFileName(module, NOW));
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

const insertOrder = (sql: string): string[] => [
  ...new Set([...sql.matchAll(/^INSERT INTO "([^"]+)"/gm)].map((match) => match[1]!)),
];

test('backupFileName is module_<name>_<UTC basic ISO 8601>.sql', (t) => {
  t.is(backupFileName('patients', NOW), 'module_patients_20260304T050607Z.sql');
  t.throws(() => backupFileName('Bad-Name', NOW), { instanceOf: WardError });
});

test('every tricky type comes back identical through restoreBackup and through psql -f', async (t) => {
  const source = await database(t, TRICKY_SCHEMA, TRICKY_ROWS);
  const file = await backupFile(t);
  const result = await backupTables(source.knex, ['tricky'], file);
  t.deepEqual(result.tables, [{ table: 'tricky', rows: 6 }]);
  const expected = await contents(source.knex, ['tricky']);

  await source.knex.raw('TRUNCATE tricky');
  await restoreBackup(source.knex, file);
  t.deepEqual(await contents(source.knex, ['tricky']), expected);

  await source.knex.raw('TRUNCATE tricky');
  await psqlRestore(source.url, file);
  t.deepEqual(await contents(source.knex, ['tricky']), expected);
});

test('values stay exact when the restoring session has other date, interval and time zone styles', async (t) => {
  const source = await database(t, TRICKY_SCHEMA, TRICKY_ROWS);
  const file = await backupFile(t);
  await backupTables(source.knex, ['tricky'], file);
  const expected = await contents(source.knex, ['tricky']);
  await source.knex.raw('TRUNCATE tricky');
  const db = source.url.slice(source.url.lastIndexOf('/') + 1);
  await source.knex.raw(
    `ALTER DATABASE ${db} SET DateStyle = 'SQL, DMY'; ALTER DATABASE ${db} SET IntervalStyle = 'sql_standard';
     ALTER DATABASE ${db} SET TimeZone = 'Pacific/Chatham'; ALTER DATABASE ${db} SET extra_float_digits = -15`,
  );
  await psqlRestore(source.url, file);
  await source.knex.raw(`ALTER DATABASE ${db} RESET ALL`);
  await source.knex.destroy().then(() => source.knex.initialize());
  t.deepEqual(await contents(source.knex, ['tricky']), expected);
});

test('a file whose line endings were converted to CRLF still restores every value exactly', async (t) => {
  const source = await database(t, TRICKY_SCHEMA, TRICKY_ROWS);
  const file = await backupFile(t);
  await backupTables(source.knex, ['tricky'], file);
  const expected = await contents(source.knex, ['tricky']);
  await writeFile(file, (await readFile(file, 'utf8')).replaceAll('\n', '\r\n'));

  await source.knex.raw('TRUNCATE tricky');
  await restoreBackup(source.knex, file);
  t.deepEqual(await contents(source.knex, ['tricky']), expected);

  await source.knex.raw('TRUNCATE tricky');
  await psqlRestore(source.url, file);
  t.deepEqual(await contents(source.knex, ['tricky']), expected);
});

test('a restore that collides with rows already there fails with restore_failed and changes nothing', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  await backupTables(source.knex, ['patient', 'visit'], file);
  await source.knex.raw('TRUNCATE patient, visit CASCADE');
  await source.knex.raw("INSERT INTO patient (id, name) VALUES (3, 'seeded again')");
  const error = await t.throwsAsync(restoreBackup(source.knex, file), { instanceOf: WardError });
  t.is(error?.code, 'restore_failed');
  t.regex(error?.message ?? '', /into "patient": duplicate key/);
  t.deepEqual(await contents(source.knex, ['patient', 'visit']), {
    patient: [{ text: '(3,"seeded again")', json: '{"id":3,"name":"seeded again"}' }],
    visit: [],
  });
});

test('random unicode text, text arrays and jsonb strings come back identical', async (t) => {
  const source = await database(
    t,
    'CREATE TABLE texts (id integer PRIMARY KEY, value text, list text[], doc jsonb)',
  );
  const text = fc
    .string({ unit: 'binary', maxLength: 30 })
    .filter((s) => s.isWellFormed() && !s.includes('\0'));
  const values = fc.sample(fc.tuple(text, fc.array(fc.option(text), { maxLength: 4 })), {
    numRuns: 400,
    seed: 7,
  });
  await source
    .knex('texts')
    .insert(values.map(([value, list], id) => ({ id, value, list, doc: JSON.stringify({ value, list }) })));
  const file = await backupFile(t);
  await backupTables(source.knex, ['texts'], file);
  const expected = await contents(source.knex, ['texts']);
  await source.knex.raw('TRUNCATE texts');
  await restoreBackup(source.knex, file);
  t.deepEqual(await contents(source.knex, ['texts']), expected);
  await source.knex.raw('TRUNCATE texts');
  await psqlRestore(source.url, file);
  t.deepEqual(await contents(source.knex, ['texts']), expected);
});

test('parents come before children whatever order the tables are named in', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  const result = await backupTables(source.knex, CLINIC_TABLES, file);
  t.deepEqual(result.tables, [
    { table: 'patient', rows: 3 },
    { table: 'unused', rows: 0 },
    { table: 'visit', rows: 5 },
    { table: 'prescription', rows: 2 },
  ]);
  t.is(result.rows, 10);
  const sql = await readFile(file, 'utf8');
  t.deepEqual(insertOrder(sql), ['patient', 'visit', 'prescription']);
  t.false(sql.includes('session_replication_role'));
  t.is(result.bytes, Buffer.byteLength(sql));
});

test('serial and identity sequences continue after a restore, as pg_dump --data-only leaves them', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  await backupTables(source.knex, CLINIC_TABLES, file);
  const expected = await contents(source.knex, CLINIC_TABLES);
  await source.knex.raw('TRUNCATE prescription, visit, patient, unused RESTART IDENTITY');
  await restoreBackup(source.knex, file);
  t.deepEqual(await contents(source.knex, CLINIC_TABLES), expected);
  t.deepEqual(await nextIds(source.knex), {
    patient_id_seq: '5',
    prescription_id_seq: '3',
    unused_id_seq: '1',
    visit_id_seq: '6',
  });
});

test('tables that reference each other or themselves restore, without leaving checks off', async (t) => {
  const source = await database(t, CYCLIC_SCHEMA, CYCLIC_ROWS);
  const tables = ['staff', 'ward_b', 'ward_a'];
  const file = await backupFile(t);
  const result = await backupTables(source.knex, tables, file);
  t.deepEqual(
    result.tables.map((table) => table.table),
    ['staff', 'ward_a', 'ward_b'],
  );
  t.true((await readFile(file, 'utf8')).includes('SET LOCAL session_replication_role = replica;'));
  const expected = await contents(source.knex, tables);

  const single = knexFactory({ client: 'pg', connection: source.url, pool: { min: 0, max: 1 } });
  t.teardown(() => single.destroy());
  await single.raw('TRUNCATE staff, ward_a, ward_b');
  await restoreBackup(single, file);
  t.deepEqual(await contents(single, tables), expected);
  const role = await single.raw<{ rows: Array<{ session_replication_role: string }> }>(
    'SHOW session_replication_role',
  );
  t.is(role.rows[0]!.session_replication_role, 'origin');

  await single.raw('TRUNCATE staff, ward_a, ward_b');
  await psqlRestore(source.url, file);
  t.deepEqual(await contents(single, tables), expected);
});

test('a table larger than one INSERT statement round-trips row for row', async (t) => {
  const source = await database(
    t,
    `CREATE TABLE bulk (id integer PRIMARY KEY, label text, at timestamptz);
     INSERT INTO bulk SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'row ' || i || repeat('''', i % 3) END,
       '2020-01-01'::timestamptz + i * interval '1 minute' FROM generate_series(1, 2345) AS i`,
  );
  const file = await backupFile(t);
  await backupTables(source.knex, ['bulk'], file);
  const digest =
    "SELECT md5(string_agg(t::text, E'\\n' ORDER BY id)) AS digest, count(*)::int AS n FROM bulk t";
  const before = (await source.knex.raw<{ rows: unknown[] }>(digest)).rows;
  await source.knex.raw('TRUNCATE bulk');
  const seen: number[] = [];
  const restored = await restoreBackup(source.knex, file, (progress) => seen.push(progress.rows));
  t.deepEqual(restored, { tables: [{ table: 'bulk', rows: 2345 }], rows: 2345 });
  t.deepEqual(seen, [500, 1000, 1500, 2000, 2345]);
  t.deepEqual((await source.knex.raw<{ rows: unknown[] }>(digest)).rows, before);
});

test('a partitioned table is backed up with all its partitions, once, even those made at run time', async (t) => {
  const source = await database(
    t,
    `CREATE TABLE visit_log (id integer, at date NOT NULL, note text) PARTITION BY RANGE (at);
     CREATE TABLE visit_log_2025 PARTITION OF visit_log FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
     CREATE TABLE visit_log_2026 PARTITION OF visit_log FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
     INSERT INTO visit_log VALUES (1, '2025-05-01', 'a'), (2, '2026-05-01', 'b'), (3, '2026-06-01', NULL)`,
  );
  const file = await backupFile(t);
  // visit_log_2026 stands for a partition the module made at run time: not in its table list.
  const result = await backupTables(source.knex, ['visit_log_2025', 'visit_log'], file);
  t.deepEqual(result.tables, [{ table: 'visit_log', rows: 3 }]);
  const expected = await contents(source.knex, ['visit_log_2025', 'visit_log_2026']);
  await source.knex.raw('TRUNCATE visit_log');
  await restoreBackup(source.knex, file);
  t.deepEqual(await contents(source.knex, ['visit_log_2025', 'visit_log_2026']), expected);
});

test('a value larger than the write buffer round-trips exactly', async (t) => {
  const source = await database(
    t,
    `CREATE TABLE notes (id integer PRIMARY KEY, body text, plain text);
     INSERT INTO notes VALUES
       (1, repeat(E'é🩺''\\\n\t', 300000), repeat('x', 3000000)),
       (2, 'small', NULL)`,
  );
  const file = await backupFile(t);
  await backupTables(source.knex, ['notes'], file);
  const digest =
    'SELECT id, md5(body) AS body, md5(plain) AS plain, length(body) AS n FROM notes ORDER BY id';
  const before = (await source.knex.raw<{ rows: unknown[] }>(digest)).rows;
  await source.knex.raw('TRUNCATE notes');
  await restoreBackup(source.knex, file);
  t.deepEqual((await source.knex.raw<{ rows: unknown[] }>(digest)).rows, before);
  await source.knex.raw('TRUNCATE notes');
  await psqlRestore(source.url, file);
  t.deepEqual((await source.knex.raw<{ rows: unknown[] }>(digest)).rows, before);
});

test('our backup restores what pg_dump --data-only --inserts restores, and keeps the -0 pg_dump drops', async (t) => {
  const source = await database(t, TRICKY_SCHEMA, TRICKY_ROWS, CLINIC_SCHEMA, CLINIC_ROWS);
  const viaDump = await database(t, TRICKY_SCHEMA, CLINIC_SCHEMA);
  const viaWard = await database(t, TRICKY_SCHEMA, CLINIC_SCHEMA);
  const tables = ['tricky', ...CLINIC_TABLES];
  const dir = await scratchDir('ward-backup-');
  const dump = path.join(dir, 'pg_dump.sql');
  await run('pg_dump', [
    '--data-only',
    '--inserts',
    ...tables.flatMap((table) => ['-t', table]),
    '-f',
    dump,
    source.url,
  ]);
  await psqlRestore(viaDump.url, dump);
  const ours = path.join(dir, backupFileName('clinic', NOW));
  await backupTables(source.knex, tables, ours);
  await restoreBackup(viaWard.knex, ours);

  t.deepEqual(await contents(viaWard.knex, tables), await contents(source.knex, tables));
  t.deepEqual(await nextIds(viaWard.knex), await nextIds(viaDump.knex));
  // pg_dump writes a float's text unquoted, so -0 is read as the integer 0; our quoted literal is not.
  const negativeZero = 'SELECT f8::text AS f8 FROM tricky WHERE id = 4';
  t.deepEqual((await viaWard.knex.raw<{ rows: unknown[] }>(negativeZero)).rows, [{ f8: '-0' }]);
  t.deepEqual((await viaDump.knex.raw<{ rows: unknown[] }>(negativeZero)).rows, [{ f8: '0' }]);
  await viaWard.knex.raw('UPDATE tricky SET f8 = 0 WHERE id = 4');
  t.deepEqual(await contents(viaWard.knex, tables), await contents(viaDump.knex, tables));
});

test('a table that does not exist fails the backup with backup_failed and leaves no file', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  const error = await t.throwsAsync(backupTables(source.knex, ['patient', 'nope'], file), {
    instanceOf: WardError,
  });
  t.is(error?.code, 'backup_failed');
  t.regex(
    error?.message ?? '',
    /table "nope" to .*module_clinic_20260304T050607Z\.sql failed: .*does not exist/,
  );
  t.false(await exists(file));
  t.false(await exists(`${file}.partial`));
  t.deepEqual((await source.knex.raw<{ rows: unknown[] }>('SELECT count(*)::int AS n FROM patient')).rows, [
    { n: 3 },
  ]);
});

/** Backs up `big` in a child process whose files may not grow past 1 MB, as on a full volume. */
const CHILD = `
  import knexFactory from 'knex';
  import { backupTables } from ${JSON.stringify(path.resolve('src/backup/backup.ts'))};
  const [url, file] = process.argv.slice(1);
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  try {
    await backupTables(knex, ['big'], file);
    console.log(JSON.stringify({ code: null }));
  } catch (error) {
    const counts = await Promise.all([1, 2, 3, 4].map(() => knex.raw('SELECT count(*)::int AS n FROM big')));
    console.log(JSON.stringify({ ...error.toJSON(), after: counts.map((result) => result.rows[0].n) }));
  } finally {
    await knex.destroy();
  }`;

test('a write that fails mid-backup leaves no file and a usable connection pool', async (t) => {
  const source = await database(
    t,
    `CREATE TABLE big (id integer PRIMARY KEY, filler text);
     INSERT INTO big SELECT i, repeat('x', 200) FROM generate_series(1, 20000) AS i`,
  );
  const file = await backupFile(t);
  // ulimit -f 2048 (blocks of 512 bytes): writes past 1 MB fail with EFBIG while COPY still streams.
  const { stdout } = await run(
    'sh',
    [
      '-c',
      'ulimit -f 2048; exec "$0" --input-type=module -e "$1" "$2" "$3"',
      process.execPath,
      CHILD,
      source.url,
      file,
    ],
    { cwd: process.cwd() },
  );
  // The last line: knex logs the connection the failure closed before it.
  const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    code: string;
    message: string;
    hint: string;
    after: number[];
  };
  t.is(outcome.code, 'backup_failed');
  t.regex(outcome.message, /table "big" to .* failed: .*EFBIG/);
  t.regex(outcome.hint, /free disk space/);
  t.deepEqual(outcome.after, [20000, 20000, 20000, 20000]);
  t.false(await exists(file));
  t.false(await exists(`${file}.partial`));
});

test('a backup directory that cannot be created fails with a hint about permissions and space', async (t) => {
  const source = await database(t, CLINIC_SCHEMA);
  const blocker = path.join(await scratchDir('ward-backup-'), 'not-a-directory');
  await writeFile(blocker, '');
  const file = path.join(blocker, 'backups', backupFileName('clinic', NOW));
  const error = await t.throwsAsync(backupTables(source.knex, ['patient'], file), { instanceOf: WardError });
  t.is(error?.code, 'backup_failed');
  t.regex(error?.hint ?? '', /writable/);
  t.false(await exists(file));
});

test('a backup never replaces an existing file of the same name', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  await writeFile(file, 'older backup');
  const error = await t.throwsAsync(backupTables(source.knex, ['patient'], file), { instanceOf: WardError });
  t.is(error?.code, 'backup_failed');
  t.is(await readFile(file, 'utf8'), 'older backup');
});

test('a backup already being written under the same name is left alone', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  await writeFile(`${file}.partial`, 'another writer');
  const error = await t.throwsAsync(backupTables(source.knex, ['patient'], file), { instanceOf: WardError });
  t.is(error?.code, 'backup_failed');
  t.is(await readFile(`${file}.partial`, 'utf8'), 'another writer');
  t.false(await exists(file));
});

test('a module without tables gets a backup that restores nothing, cleanly', async (t) => {
  const source = await database(t);
  const file = await backupFile(t);
  t.deepEqual(await backupTables(source.knex, [], file), {
    file,
    tables: [],
    rows: 0,
    bytes: (await readFile(file)).length,
  });
  t.deepEqual(await restoreBackup(source.knex, file), { tables: [], rows: 0 });
  await psqlRestore(source.url, file);
});

test('a row count that differs from the header refuses the restore and restores nothing', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  await backupTables(source.knex, ['patient', 'visit'], file);
  const sql = await readFile(file, 'utf8');
  await source.knex.raw('TRUNCATE patient, visit CASCADE');
  for (const altered of [
    sql.replace('-- table "visit" rows 5', '-- table "visit" rows 6'),
    sql.replace(/,\n\('5',[^\n]*\)/, ''),
  ]) {
    t.not(altered, sql);
    await writeFile(file, altered);
    const error = await t.throwsAsync(restoreBackup(source.knex, file), { instanceOf: WardError });
    t.is(error?.code, 'restore_count_mismatch');
    t.deepEqual(await contents(source.knex, ['patient', 'visit']), { patient: [], visit: [] });
  }
});

test('a file cut short before its COMMIT is refused and restores nothing', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t);
  await backupTables(source.knex, ['patient', 'visit'], file);
  const sql = await readFile(file, 'utf8');
  await writeFile(file, sql.slice(0, sql.indexOf('COMMIT;')));
  await source.knex.raw('TRUNCATE patient, visit CASCADE');
  const error = await t.throwsAsync(restoreBackup(source.knex, file), { instanceOf: WardError });
  t.is(error?.code, 'restore_unreadable');
  t.deepEqual(await contents(source.knex, ['patient']), { patient: [] });
});

test('a restore into a database without the module tables says to install the module first', async (t) => {
  const source = await database(t, CLINIC_SCHEMA, CLINIC_ROWS);
  const file = await backupFile(t, 'patients');
  await backupTables(source.knex, ['patient', 'visit'], file);
  const empty = await database(t);
  const error = await t.throwsAsync(restoreBackup(empty.knex, file), { instanceOf: WardError });
  t.is(error?.code, 'restore_target_missing');
  t.regex(error?.message ?? '', /"patient", "visit"/);
  t.is(
    error?.hint,
    'install the module first (ward modules install patients then restart); nothing was restored (the transaction was rolled back)',
  );
});

test('latestBackup picks the newest backup of that module only', async (t) => {
  const dir = await scratchDir('ward-backup-');
  for (const name of [
    'module_a_20260101T000000Z.sql',
    'module_a_20260102T000000Z.sql',
    'module_a_b_20270101T000000Z.sql',
    'module_a_20260103T000000Z.sql.partial',
    'module_ab_20280101T000000Z.sql',
  ])
    await writeFile(path.join(dir, name), '');
  t.is(await latestBackup(dir, 'a'), path.join(dir, 'module_a_20260102T000000Z.sql'));
  t.is(await latestBackup(dir, 'a_b'), path.join(dir, 'module_a_b_20270101T000000Z.sql'));
  t.is(await latestBackup(dir, 'c'), null);
  t.is(await latestBackup(path.join(dir, 'missing'), 'a'), null);
});

test('what onRestored writes commits with the restore, and a restore that fails keeps none of it', async (t) => {
  const { knex } = await testDatabase(t, { migrated: true });
  await knex.raw(CLINIC_SCHEMA);
  await knex.raw(CLINIC_ROWS);
  const file = await backupFile(t);
  await backupTables(knex, ['patient', 'visit'], file);
  const expected = await contents(knex, ['patient', 'visit']);
  const record = (connection: Parameters<typeof appendOnConnection>[0]) =>
    appendOnConnection(connection, [
      { actor: 'cli:alice', action: 'module.restore', kind: 'module', recordId: 'clinic' },
    ]);
  const restores = () => knex('core_audit_event').where({ action: 'module.restore' }).select('actor');

  await knex.raw('TRUNCATE patient, visit CASCADE');
  await knex.raw("INSERT INTO patient (id, name) VALUES (3, 'seeded again')");
  await t.throwsAsync(restoreBackup(knex, file, undefined, null, record), { instanceOf: WardError });
  t.deepEqual(await restores(), []);

  await knex.raw('TRUNCATE patient, visit CASCADE');
  const refused = new Error('the audit row could not be written');
  await t.throwsAsync(
    restoreBackup(knex, file, undefined, null, async (connection) => {
      await record(connection);
      throw refused;
    }),
    { is: refused },
  );
  t.deepEqual(await restores(), []);
  t.deepEqual(await contents(knex, ['patient', 'visit']), { patient: [], visit: [] });

  await restoreBackup(knex, file, undefined, null, record);
  t.deepEqual(await restores(), [{ actor: 'cli:alice' }]);
  t.deepEqual(await contents(knex, ['patient', 'visit']), expected);
  t.like(await verifyChain(knex), { intact: true, rows: 1 });
});
