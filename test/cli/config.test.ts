/**
 * One configuration for every `ward` process: settings in `<storage>/ward.env` reach the CLI, the
 * supervisor and the backends it starts, and `ward config` shows each value and its source.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { FIXTURES, parseJson, scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { setRows, snapshot } from '../helpers/rows.ts';
import { serve } from '../helpers/serve.ts';
import type { ConfigReport } from '../../src/config/report.ts';

const LEGACY = path.join(FIXTURES, 'modules', 'legacy');
const RUNTIME = path.join(FIXTURES, 'modules', 'runtime');

/** A scratch storage folder whose ward.env holds `lines`. */
async function storageWith(...lines: string[]): Promise<{ storage: string; file: string }> {
  const storage = await scratchDir('ward-storage-');
  const file = path.join(storage, 'ward.env');
  await writeFile(file, lines.map((line) => `${line}\n`).join(''));
  return { storage, file };
}

test('ward config shows each value and its source: environment, file and line, or default; secrets masked', async (t) => {
  const { storage, file } = await storageWith(
    '# shared by every ward process',
    `WARD_MODULE_PATHS=${LEGACY}`,
    'SECRET_KEY=hunter2',
  );
  const env = {
    WARD_STORAGE_DIR: storage,
    DATABASE_URL: 'postgres://ward:s3cret@db:5432/ward',
    PORT: '9000',
  };
  const run = await ward(['config'], env);
  t.is(run.code, 0, run.stderr);
  t.is(run.stderr, '');
  const line = (name: string) => run.stdout.split('\n').find((text) => text.startsWith(`${name} `));
  t.regex(line('DATABASE_URL') ?? '', /^DATABASE_URL +postgres:\/\/ward:\*\*\*@db:5432\/ward +environment$/);
  t.regex(line('PORT') ?? '', /^PORT +9000 +environment$/);
  t.regex(line('WARD_MODULE_PATHS') ?? '', new RegExp(`^WARD_MODULE_PATHS +${LEGACY} +${file}:2$`));
  t.regex(line('SECRET_KEY') ?? '', new RegExp(`^SECRET_KEY +\\*\\*\\* +${file}:3$`));
  t.regex(line('WARD_JSON_LIMIT') ?? '', /^WARD_JSON_LIMIT +1mb +default$/);
  t.regex(
    line('WARD_GRANTS_FILE') ?? '',
    new RegExp(`^WARD_GRANTS_FILE +${storage}/grants\\.json +default$`),
  );
  t.notRegex(run.stdout, /s3cret|hunter2/);
  t.regex(run.stdout, new RegExp(`\\n  ${file}\\n  .*/\\.env`));

  const json = parseJson<ConfigReport>(await ward(['config', '--json'], env));
  const entry = (name: string) => json.settings.find((setting) => setting.name === name);
  t.deepEqual(entry('DATABASE_URL'), {
    name: 'DATABASE_URL',
    value: 'postgres://ward:***@db:5432/ward',
    source: 'environment',
  });
  t.deepEqual(entry('WARD_MODULE_PATHS'), {
    name: 'WARD_MODULE_PATHS',
    value: LEGACY,
    source: 'file',
    file,
    line: 2,
  });
  t.deepEqual(entry('WARD_TRUST_PROXY'), { name: 'WARD_TRUST_PROXY', value: 'off', source: 'default' });
  t.like(json.files[0], { path: file, found: true });
  t.deepEqual(json.warnings, []);

  const shown = parseJson<ConfigReport>(await ward(['config', '--json', '--show-secrets'], env));
  t.is(shown.settings.find((setting) => setting.name === 'SECRET_KEY')?.value, 'hunter2');
  t.is(
    shown.settings.find((setting) => setting.name === 'DATABASE_URL')?.value,
    'postgres://ward:s3cret@db:5432/ward',
  );
});

test('an unknown key warns on stderr naming the closest setting; NODE_OPTIONS is ignored with a warning', async (t) => {
  const { storage, file } = await storageWith('WARD_MODUL_PATHS=/srv/modules', 'NODE_OPTIONS=--inspect=0');
  const run = await ward(['config', '--json'], { WARD_STORAGE_DIR: storage });
  t.is(run.code, 0, run.stderr);
  t.is(
    run.stderr,
    `warning: ${file}:1: WARD_MODUL_PATHS is not a Ward setting, ignored; did you mean WARD_MODULE_PATHS?\n` +
      `warning: ${file}:2: NODE_OPTIONS is not a Ward setting, ignored (a settings file sets only the settings Ward lists in \`ward config\`)\n`,
  );
  const report = parseJson<ConfigReport>(run);
  t.is(report.warnings.length, 2);
  t.like(
    report.settings.find((setting) => setting.name === 'WARD_MODULE_PATHS'),
    { value: null, source: 'default' },
  );
  t.notRegex(run.stderr, /Debugger listening/, 'NODE_OPTIONS did not reach Node');
});

test('a malformed line makes ward config exit 1 naming the file and line', async (t) => {
  const { storage, file } = await storageWith('PORT=9000', 'WARD_MODULE_PATHS /srv/modules');
  const run = await ward(['config'], { WARD_STORAGE_DIR: storage });
  t.is(run.code, 1);
  t.is(run.stdout, '');
  t.regex(
    run.stderr,
    new RegExp(
      `^error: ${file}:2: expected KEY=value, found a line starting "WARD_MODULE_PATHS" \\(the rest is not shown: it may hold a secret\\)$`,
      'm',
    ),
  );
  t.false(run.stderr.includes('/srv/modules'), 'the value is not shown');
  t.regex(run.stderr, /^hint: write one setting per line as KEY=value/m);
  t.notRegex(run.stderr, /^\s+at /m, 'no stack trace');
  t.like(parseJson(await ward(['config', '--json'], { WARD_STORAGE_DIR: storage })), {
    error: {
      code: 'invalid_settings_file',
      message: `${file}:2: expected KEY=value, found a line starting "WARD_MODULE_PATHS" (the rest is not shown: it may hold a secret)`,
    },
  });
});

test('ward serve with a malformed settings file starts nothing and applies nothing', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const storage = await scratchDir('ward-storage-');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, PORT: '0' };
  t.is((await ward(['modules', 'install', 'base'], env)).code, 0);
  const before = await snapshot(knex);
  const file = path.join(storage, 'ward.env');
  await writeFile(file, 'PORT="0\n');
  for (const command of ['serve', 'backend']) {
    const run = await ward([command], env);
    t.is(run.code, 1, `${command}: ${run.stdout}${run.stderr}`);
    t.regex(run.stderr, new RegExp(`^error: ${file}:1: PORT: the " quote is not closed`, 'm'));
    t.notRegex(run.stdout, /listening on/);
  }
  t.deepEqual(await snapshot(knex), before, 'the plan was not applied');
  t.false(await knex.schema.hasTable('base_user'), 'no module table was created');
});

test('doctor finds a module in a WARD_MODULE_PATHS folder given only in ward.env', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [
    { name: 'base', state: 'installed', version: '1.0.0' },
    { name: 'patients', state: 'installed', version: '1.1.0' },
    { name: 'legacy_reports', state: 'installed', version: '0.9.0' },
  ]);
  // DATABASE_URL too comes from the file: the command line gives only the storage folder.
  const { storage } = await storageWith(`DATABASE_URL=${url}`, `WARD_MODULE_PATHS=${LEGACY}`);
  const run = await ward(['modules', 'doctor'], { WARD_STORAGE_DIR: storage });
  t.is(run.stdout, 'No issues found.\n', run.stderr);
  t.is(run.code, 0);
});

test("doctor's orphan hint names where it searched, and sends the operator there before `orphan`", async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  await setRows(knex, [{ name: 'legacy_reports', state: 'installed', version: '0.9.0' }]);
  const { storage, file } = await storageWith('WARD_MODULE_PATHS=/srv/elsewhere');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage };
  const report = parseJson<{ orphans: Array<{ module: string; hint: string }> }>(
    await ward(['modules', 'doctor', '--json'], env),
  );
  t.is(report.orphans.length, 1);
  const hint = report.orphans[0]?.hint ?? '';
  t.true(hint.includes(`WARD_MODULE_PATHS=/srv/elsewhere (from ${file}:1)`), hint);
  t.regex(hint, /WARD_PACKAGE_ROOT=\S+ \(default\)/);
  t.regex(hint, /check `ward config` and put them in <storage>\/ward\.env/);
  t.regex(hint, /Only if the code is truly gone, run `ward modules orphan legacy_reports`$/);
  const text = await ward(['modules', 'doctor'], env);
  t.is(text.code, 1);
  t.true(text.stdout.includes(`  legacy_reports (installed)\n    hint: ${hint}\n`), text.stdout);
});

for (const command of ['serve', 'backend'] as const)
  test(`a backend started by ward ${command} mounts a module found through WARD_MODULE_PATHS in ward.env`, async (t) => {
    const { url } = await testDatabase(t, { migrated: true });
    const { storage } = await storageWith(`WARD_MODULE_PATHS=${RUNTIME}`);
    const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage };
    const install = await ward(['modules', 'install', 'slow_route'], env);
    t.is(install.code, 0, install.stderr);
    const served = await serve(env, command);
    try {
      // Mounted, the route asks for a signed-in caller; unknown, it would be 404.
      t.is((await fetch(`${served.base}/api/v1/slow_route/wait`)).status, 401);
    } finally {
      await served.stop();
    }
    const list = parseJson<Array<{ name: string; state: string }>>(
      await ward(['modules', 'list', '--json'], env),
    );
    t.like(
      list.find((entry) => entry.name === 'slow_route'),
      { state: 'installed' },
    );
  });

test('a module setting in ward.env reaches the module in the backend (documents reads WARD_DOCUMENT_MAX_BYTES)', async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const { storage, file } = await storageWith('WARD_DOCUMENT_MAX_BYTES=lots');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage };
  t.is((await ward(['modules', 'install', 'documents'], env)).code, 0);
  const config = parseJson<ConfigReport>(await ward(['config', '--json'], env));
  t.like(
    config.settings.find((setting) => setting.name === 'WARD_DOCUMENT_MAX_BYTES'),
    { value: 'lots', file, line: 1 },
  );
  const served = await serve(env);
  try {
    // The module refuses the value it read, so its routes are not mounted: proof that it saw it.
    // pino writes asynchronously: the line may follow "listening", so wait for it.
    t.regex(
      await served.waitFor(/module routes not mounted/),
      /WARD_DOCUMENT_MAX_BYTES=\\?"lots\\?" is not a size/,
    );
  } finally {
    await served.stop();
  }
});
