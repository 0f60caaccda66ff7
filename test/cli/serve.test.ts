import test from 'ava';
import { ward } from '../helpers/cli.ts';
import { serve } from '../helpers/serve.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';
import packageJson from '../../package.json' with { type: 'json' };

test('serve migrates the core schema, answers /health with the package version and stops on SIGTERM', async (t) => {
  const { url, knex } = await testDatabase(t);
  const server = await serve({ DATABASE_URL: url });
  const response = await fetch(`${server.base}/health`);
  t.is(response.status, 200);
  t.deepEqual(await response.json(), { status: 'healthy', version: packageJson.version });
  t.true(await knex.schema.hasTable('core_module'));
  t.is(await server.stop(), 0);
});

test('a backend refuses to start while a module row has no code on disk, listing the orphans', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [
    { name: 'vanished', state: 'installed', version: '1.0.0' },
    { name: 'gone_too', state: 'to_upgrade', version: '1.0.0' },
    { name: 'was_removed', state: 'uninstalled', version: '1.0.0' },
  ]);
  const run = await ward(['backend'], { DATABASE_URL: url, PORT: '0' });
  t.is(run.code, 1);
  t.is(
    run.stderr.split('\nhint:')[0],
    'error: orphan modules (in the database, missing from disk):\ngone_too\nvanished',
  );
  t.regex(run.stderr, /ward modules orphan <name>/);
});
