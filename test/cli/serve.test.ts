import { spawn } from 'node:child_process';
import test from 'ava';
import { ROOT } from '../../src/config.ts';
import { WARD, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';
import packageJson from '../../package.json' with { type: 'json' };

/** Starts `ward serve` on a free port and resolves with its base URL once it listens. */
function serve(env: Record<string, string>): Promise<{ base: string; stop: () => Promise<number | null> }> {
  const child = spawn(WARD, ['serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null)
        resolve({
          base: match[1] as string,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`ward serve exited ${code} before listening:\n${output}`)));
  });
}

test('serve migrates the core schema, answers /health with the package version and stops on SIGTERM', async (t) => {
  const { url, knex } = await testDatabase(t);
  const server = await serve({ DATABASE_URL: url });
  const response = await fetch(`${server.base}/health`);
  t.is(response.status, 200);
  t.deepEqual(await response.json(), { status: 'healthy', version: packageJson.version });
  t.true(await knex.schema.hasTable('core_module'));
  t.is(await server.stop(), 0);
});

test('serve refuses to start while a module row has no code on disk, listing the orphans', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [
    { name: 'vanished', state: 'installed', version: '1.0.0' },
    { name: 'gone_too', state: 'to_upgrade', version: '1.0.0' },
    { name: 'was_removed', state: 'uninstalled', version: '1.0.0' },
  ]);
  const run = await ward(['serve'], { DATABASE_URL: url, PORT: '0' });
  t.is(run.code, 1);
  t.is(
    run.stderr.split('\nhint:')[0],
    'error: orphan modules (in the database, missing from disk):\ngone_too\nvanished',
  );
  t.regex(run.stderr, /ward modules orphan <name>/);
});
