import { symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { FIXTURES, scratchDir, tracedWard, type Run, type WardEnv } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows } from '../helpers/rows.ts';

const modulePaths = (...dirs: string[]) => dirs.map((dir) => path.join(FIXTURES, 'modules', dir)).join(':');

/**
 * `modules list` (the lean path) and `modules:list` (oclif's, the colon form is never lean) print
 * the same bytes and exit alike; `leanFallsBack` when the lean path is expected to hand over to
 * oclif. Returns the run.
 */
async function sameOnBothPaths(
  t: ExecutionContext,
  env: WardEnv,
  json: boolean,
  { leanFallsBack = false } = {},
): Promise<Run> {
  const flags = json ? ['--json'] : [];
  const [lean, oclif] = await Promise.all([
    tracedWard(['modules', 'list', ...flags], env),
    tracedWard(['modules:list', ...flags], env),
  ]);
  if (leanFallsBack) t.regex(lean.loaded, /node_modules\/@oclif\/core\//, 'the lean path gave up');
  else {
    t.notRegex(lean.loaded, /node_modules\/(@oclif|knex)\//, 'the lean path loads neither oclif nor knex');
    // `npm test` builds the bundle first: the lean path runs from it, not from the sources.
    t.regex(lean.loaded, /\/build\/modules-list\.mjs$/m, 'the lean path runs from its bundle');
    t.notRegex(lean.loaded, /\/(src|bin)\/.*\.ts$/m, 'and loads no source file');
  }
  t.regex(oclif.loaded, /node_modules\/@oclif\/core\//);
  t.deepEqual(lean.run, oclif.run);
  return lean.run;
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

for (const json of [false, true]) {
  const mode = json ? '--json' : 'the table';
  test(`${mode}: modules in every state, orphans and community modules print alike on both paths`, async (t) => {
    const { url, knex } = await testDatabase(t, { migrated: true });
    await setRows(knex, [
      { name: 'base', state: 'installed', version: '1.0.0' },
      { name: 'patients', state: 'to_upgrade', version: '0.9.0' },
      { name: 'appointments', state: 'to_install', error_message: 'migration failed: boom' },
      { name: 'clinic_portal', state: 'to_uninstall', version: '1.2.0' },
      { name: 'vanished', state: 'installed', version: '2.0.0' },
    ]);
    const run = await sameOnBothPaths(
      t,
      { DATABASE_URL: url, WARD_MODULE_PATHS: modulePaths('community') },
      json,
    );
    t.is(run.code, 0, run.stderr);
    t.regex(run.stdout, /clinic_portal/);
    t.regex(run.stdout, /vanished/);
  });

  test(`${mode}: broken manifests in WARD_MODULE_PATHS print alike on both paths`, async (t) => {
    const { url } = await testDatabase(t, { migrated: true });
    const run = await sameOnBothPaths(
      t,
      { DATABASE_URL: url, WARD_MODULE_PATHS: modulePaths('broken') },
      json,
    );
    t.is(run.code, 0, run.stderr);
  });

  test(`${mode}: an unreachable database fails alike on both paths`, async (t) => {
    const port = await closedPort();
    const run = await sameOnBothPaths(
      t,
      { DATABASE_URL: `postgres://ward:secret@127.0.0.1:${port}/ward` },
      json,
    );
    t.is(run.code, 1);
    t.regex(json ? run.stdout : run.stderr, /database_unreachable|cannot reach the database/);
  });

  test(`${mode}: a database without the core tables fails alike on both paths`, async (t) => {
    const { url } = await testDatabase(t);
    const run = await sameOnBothPaths(t, { DATABASE_URL: url }, json);
    t.is(run.code, 1);
    t.regex(json ? run.stdout : run.stderr, /schema_missing|the core tables are missing/);
  });

  test(`${mode}: a module folder discovery cannot read fails alike on both paths`, async (t) => {
    const { url } = await testDatabase(t, { migrated: true });
    const loop = path.join(await scratchDir(), 'loop');
    await symlink(loop, loop);
    const run = await sameOnBothPaths(t, { DATABASE_URL: url, WARD_MODULE_PATHS: loop }, json);
    t.is(run.code, 1);
    t.regex(json ? run.stdout : run.stderr, /discovery_failed|cannot read/);
  });
}

test('a user theme for JSON leaves modules list --json to oclif', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const configDir = await scratchDir();
  await writeFile(path.join(configDir, 'theme.json'), JSON.stringify({ json: { key: 'red' } }));
  const { run, loaded } = await tracedWard(['modules', 'list', '--json'], {
    DATABASE_URL: url,
    WARD_CONFIG_DIR: configDir,
  });
  t.is(run.code, 0, run.stderr);
  t.regex(loaded, /node_modules\/@oclif\/core\//);
});

for (const json of [false, true]) {
  test(`${json ? '--json' : 'the table'}: an error Ward cannot explain is left to oclif on both paths`, async (t) => {
    const { url, knex } = await testDatabase(t);
    await knex.raw('create table core_module (name text primary key, state text)');
    const run = await sameOnBothPaths(t, { DATABASE_URL: url }, json, { leanFallsBack: true });
    t.is(run.code, 1);
    t.regex(json ? run.stdout : run.stderr, /42703/, 'undefined_column, from PostgreSQL');
  });
}
