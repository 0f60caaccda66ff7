import { access, chmod, constants, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { redactUrl } from '../../src/config/redact-url.ts';
import { psqlTarget } from '../../src/cli/commands/db/psql.ts';
import { ensureEmbedded } from '../../src/db/embedded.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { TEST_STORAGE, testDatabase } from '../helpers/database.ts';

test('two ward processes starting the embedded server at once end up sharing one server', async (t) => {
  const storage = await scratchDir('ward-embedded-');
  // As root the server runs as the postgres user, which must be able to reach the storage folder.
  await chmod(storage, 0o755);
  const env = { WARD_STORAGE_DIR: storage };
  t.teardown(async () => {
    await ward(['db', 'stop'], env);
    await rm(storage, { recursive: true, force: true });
  });
  const fresh = parseJson<{ url: string | null }>(await ward(['db', 'status', '--json'], env));
  t.is(fresh.url, null, 'db status does not start anything');
  const [first, second] = await Promise.all([ward(['db', 'migrate'], env), ward(['db', 'migrate'], env)]);
  t.is(first.code, 0, first.stderr);
  t.is(second.code, 0, second.stderr);
  t.deepEqual(
    [first.stdout, second.stdout].sort(),
    [
      'Applied core/20260101000000_core_schema, core/20260102000000_module_tables, core/20261127000000_module_requires, core/20261127000100_sign_in_throttle, core/20261127000200_audit, core/20261127002100_audit_patient_ids, core/20261127002200_audit_append, core/20261128000000_audit_patient_ids_concurrently, core/20261128000100_audit_append_texts, core/20261128000200_audit_read_indexes.\n',
      'Core schema is at head; nothing to apply.\n',
    ],
    'the reconcile lock lets exactly one of them migrate',
  );
  const status = parseJson<{ mode: string; running: boolean; url: string; dataDir: string; logDir: string }>(
    await ward(['db', 'status', '--json'], env),
  );
  t.like(status, {
    mode: 'embedded',
    running: true,
    dataDir: path.join(storage, 'postgres', 'data'),
    logDir: path.join(storage, 'postgres', 'log'),
  });
  t.regex(status.url, /^postgres:\/\/ward:\*\*\*@127\.0\.0\.1:\d+\/ward$/, 'the password is never printed');
  t.is((await ward(['modules', 'list'], env)).code, 0, 'a later command reuses the running server');

  const stop = await ward(['db', 'stop'], env);
  t.is(stop.stdout, 'Stopped the embedded PostgreSQL.\n');
  t.is((await ward(['db', 'stop'], env)).stdout, 'The embedded PostgreSQL is not running.\n');
  t.like(parseJson(await ward(['db', 'status', '--json'], env)), { running: false });
  const again = await ward(['modules', 'list', '--json'], env);
  t.is(again.code, 0, 'the next command that needs it starts it again, with its data');

  await ward(['db', 'stop'], env);
  const url = parseJson<{ url: string; embedded: boolean }>(await ward(['db', 'url', '--json'], env));
  t.true(url.embedded);
  t.regex(url.url, /^postgres:\/\/ward:[\w-]{24}@127\.0\.0\.1:\d+\/ward$/, 'db url gives the password');
  t.is(redactUrl(url.url), status.url, 'the server db status names');
  t.like(parseJson(await ward(['db', 'status', '--json'], env)), { running: true }, 'db url started it');
});

test('db stop refuses when DATABASE_URL names an external server', async (t) => {
  const run = await ward(['db', 'stop'], { DATABASE_URL: 'postgres://x:y@127.0.0.1:1/z' });
  t.is(run.code, 1);
  t.regex(run.stderr, /DATABASE_URL is set, so Ward does not manage this database server/);
});

test('db url prints DATABASE_URL as given, password included, without connecting', async (t) => {
  const external = 'postgres://clinic:s3cret@127.0.0.1:1/wards';
  const plain = await ward(['db', 'url'], { DATABASE_URL: external });
  t.is(plain.code, 0, plain.stderr);
  t.is(plain.stdout, `${external}\n`);
  t.deepEqual(parseJson(await ward(['db', 'url', '--json'], { DATABASE_URL: external })), {
    url: external,
    embedded: false,
  });
});

/** The embedded server the other tests use (storage/test): these only read from its `ward` database. */
const embedded = { WARD_STORAGE_DIR: TEST_STORAGE };

test('db psql runs SQL from stdin on the embedded database Ward uses', async (t) => {
  const { port } = await ensureEmbedded(TEST_STORAGE);
  const run = await ward(['db', 'psql', '--', '-At'], embedded, {
    input: 'select current_database(), inet_server_port();\n',
  });
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, `ward|${port}\n`);
});

test("db psql exits with psql's exit code when a script fails under ON_ERROR_STOP, and stops there", async (t) => {
  const run = await ward(['db', 'psql', '-v', 'ON_ERROR_STOP=1', '-At'], embedded, {
    input: "select 'first';\nselect nope;\nselect 'never';\n",
  });
  t.is(run.code, 3);
  t.is(run.stdout, 'first\n');
  t.regex(run.stderr, /column "nope" does not exist/);
});

test('db psql connects to DATABASE_URL when it is set', async (t) => {
  const { url } = await testDatabase(t);
  const run = await ward(['db', 'psql', '--', '-At', '-c', 'select current_database()'], {
    DATABASE_URL: url,
  });
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout, `${new URL(url).pathname.slice(1)}\n`);
});

test('db psql passes the password in PGPASSWORD, not on the command line, and warns of a psql of another major version', async (t) => {
  const { url } = await testDatabase(t);
  const bin = await scratchDir('ward-fake-psql-');
  t.teardown(() => rm(bin, { recursive: true, force: true }));
  // Prints what it was given; `ps` shows the arguments to every user of the machine.
  await writeFile(
    path.join(bin, 'psql'),
    [
      '#!/bin/sh',
      'if [ "$1" = --version ]; then echo "psql (PostgreSQL) 99.1"; exit 0; fi',
      'printf "%s\\n" "$@"',
      'echo "PGPASSWORD=$PGPASSWORD"',
      'exit 7',
    ].join('\n'),
    { mode: 0o755 },
  );
  const run = await ward(['db', 'psql', '-At', '-c', 'select 1'], {
    DATABASE_URL: url,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
  });
  const parsed = new URL(url);
  const password = parsed.password;
  parsed.password = '';
  t.is(run.code, 7, "psql's exit code");
  t.is(
    run.stdout,
    ['--dbname', parsed.toString(), '-At', '-c', 'select 1', `PGPASSWORD=${password}`, ''].join('\n'),
  );
  t.regex(
    run.stderr,
    /^warning: psql is version 99 and the server PostgreSQL 15; SQL works, some backslash commands may not \(Debian: install postgresql-client-15 for a matching psql\)$/m,
  );
});

test('db psql takes the password out of the URL it passes, from the userinfo and from the query', (t) => {
  t.deepEqual(psqlTarget('postgres://ward:p%40ss@db:5432/ward?sslmode=require'), {
    dbname: 'postgres://ward@db:5432/ward?sslmode=require',
    password: 'p@ss',
  });
  t.deepEqual(psqlTarget('postgres://ward@db/ward?password=s3cret&sslmode=require'), {
    dbname: 'postgres://ward@db/ward?sslmode=require',
    password: 's3cret',
  });
  t.deepEqual(psqlTarget('postgres://ward@db/ward'), { dbname: 'postgres://ward@db/ward', password: '' });
});

test('db psql without psql on PATH names the package to install and exits 1', async (t) => {
  // bin/ward needs readlink and dirname from PATH; psql is left out.
  const bin = await scratchDir('ward-no-psql-');
  t.teardown(() => rm(bin, { recursive: true, force: true }));
  for (const tool of ['readlink', 'dirname']) await symlink(await onPath(tool), path.join(bin, tool));
  const run = await ward(['db', 'psql', '--', '-c', 'select 1'], {
    DATABASE_URL: 'postgres://x:y@127.0.0.1:1/z',
    PATH: bin,
  });
  t.is(run.code, 1);
  t.is(run.stdout, '');
  t.is(
    run.stderr,
    'error: psql, the PostgreSQL client, is not installed (there is no `psql` on PATH)\n' +
      'hint: install it (Debian or Ubuntu: `apt-get install postgresql-client`; macOS: `brew install libpq`), or use the one in the database container: `docker compose exec -T db psql -U <user> <db>`\n',
  );
});

async function onPath(tool: string): Promise<string> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const file = path.join(dir, tool);
    if (
      await access(file, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  }
  throw new Error(`${tool} is not on PATH`);
}
