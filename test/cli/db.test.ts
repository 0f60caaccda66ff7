import { chmod } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';

test('two ward processes starting the embedded server at once end up sharing one server', async (t) => {
  const storage = await scratchDir('ward-embedded-');
  // As root the server runs as the postgres user, which must be able to reach the storage folder.
  await chmod(storage, 0o755);
  const env = { WARD_STORAGE_DIR: storage };
  t.teardown(() => ward(['db', 'stop'], env));
  const fresh = parseJson<{ url: string | null }>(await ward(['db', 'status', '--json'], env));
  t.is(fresh.url, null, 'db status does not start anything');
  const [first, second] = await Promise.all([ward(['db', 'migrate'], env), ward(['db', 'migrate'], env)]);
  t.is(first.code, 0, first.stderr);
  t.is(second.code, 0, second.stderr);
  t.deepEqual(
    [first.stdout, second.stdout].sort(),
    [
      'Applied core/20260101000000_core_schema, core/20260102000000_module_tables.\n',
      'Core schema is at head; nothing to apply.\n',
    ],
    'the reconcile lock lets exactly one of them migrate',
  );
  const status = parseJson<{ mode: string; running: boolean; url: string; dataDir: string }>(
    await ward(['db', 'status', '--json'], env),
  );
  t.like(status, { mode: 'embedded', running: true, dataDir: path.join(storage, 'postgres', 'data') });
  t.regex(status.url, /^postgres:\/\/ward:\*\*\*@127\.0\.0\.1:\d+\/ward$/, 'the password is never printed');
  t.is((await ward(['modules', 'list'], env)).code, 0, 'a later command reuses the running server');

  const stop = await ward(['db', 'stop'], env);
  t.is(stop.stdout, 'Stopped the embedded PostgreSQL.\n');
  t.is((await ward(['db', 'stop'], env)).stdout, 'The embedded PostgreSQL is not running.\n');
  t.like(parseJson(await ward(['db', 'status', '--json'], env)), { running: false });
  const again = await ward(['modules', 'list', '--json'], env);
  t.is(again.code, 0, 'the next command that needs it starts it again, with its data');
});

test('db stop refuses when DATABASE_URL names an external server', async (t) => {
  const run = await ward(['db', 'stop'], { DATABASE_URL: 'postgres://x:y@127.0.0.1:1/z' });
  t.is(run.code, 1);
  t.regex(run.stderr, /DATABASE_URL is set, so Ward does not manage this database server/);
});
