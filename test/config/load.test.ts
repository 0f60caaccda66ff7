/**
 * The loader on scratch Ward and storage folders: which source wins, what the files may not set,
 * and what it warns about. The real Ward directory's `.env` is never written.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { applyModuleSettings, loadConfig } from '../../src/config.ts';
import type { WardError } from '../../src/errors/ward-error.ts';
import { scratchDir } from '../helpers/cli.ts';

/** A scratch Ward directory with a `.env` and a storage folder with a `ward.env`. */
async function scratchWard(files: { rootEnv?: string; storageEnv?: string }) {
  const root = await scratchDir('ward-root-');
  const storage = path.join(root, 'storage');
  await mkdir(storage);
  if (files.rootEnv !== undefined) await writeFile(path.join(root, '.env'), files.rootEnv);
  if (files.storageEnv !== undefined) await writeFile(path.join(storage, 'ward.env'), files.storageEnv);
  return { root, storage, rootEnv: path.join(root, '.env'), storageEnv: path.join(storage, 'ward.env') };
}

test('the environment beats <storage>/ward.env, which beats <root>/.env, which beats the default', async (t) => {
  const ward = await scratchWard({
    rootEnv: 'PORT=1001\nWARD_JSON_LIMIT=2mb\nWARD_TRUST_PROXY=1\n',
    storageEnv: 'PORT=1002\nWARD_JSON_LIMIT=3mb\n',
  });
  const config = loadConfig({ PORT: '1003' }, { root: ward.root });
  t.is(config.port, '1003');
  t.is(config.jsonLimit, '3mb');
  t.is(config.trustProxy, '1');
  t.is(config.spareBackend, null);
  t.deepEqual(config.resolved.get('PORT')?.source, { kind: 'environment' });
  t.deepEqual(config.resolved.get('WARD_JSON_LIMIT')?.source, {
    kind: 'file',
    file: ward.storageEnv,
    line: 2,
  });
  t.deepEqual(config.resolved.get('WARD_TRUST_PROXY')?.source, { kind: 'file', file: ward.rootEnv, line: 3 });
  t.deepEqual(config.resolved.get('WARD_SPARE_BACKEND')?.source, { kind: 'default' });
  t.deepEqual(config.files, [
    { path: ward.storageEnv, found: true },
    { path: ward.rootEnv, found: true },
  ]);
  t.deepEqual(config.warnings, []);
});

test('an empty value counts as unset wherever it is given: the next source decides', async (t) => {
  const ward = await scratchWard({ rootEnv: 'PORT=1001\n', storageEnv: 'PORT=\n' });
  t.is(loadConfig({ PORT: '' }, { root: ward.root }).port, '1001');
});

test('relative paths in a file are relative to its folder; in the environment, to the working directory', async (t) => {
  const ward = await scratchWard({ storageEnv: 'WARD_MODULE_PATHS=mods:../more\nWARD_PACKAGE_ROOT=app\n' });
  const config = loadConfig({ WARD_FRONTEND_DIR: 'web' }, { root: ward.root, cwd: '/work' });
  t.deepEqual(config.modulePaths, [path.join(ward.storage, 'mods'), path.join(ward.root, 'more')]);
  t.is(config.packageRoot, path.join(ward.storage, 'app'));
  t.is(config.frontendDir, '/work/web');
});

test('the storage folder comes from <root>/.env, and its ward.env is then read there', async (t) => {
  const ward = await scratchWard({});
  const elsewhere = await scratchDir('ward-storage-');
  await writeFile(path.join(ward.root, '.env'), `WARD_STORAGE_DIR=${elsewhere}\n`);
  await writeFile(path.join(elsewhere, 'ward.env'), 'PORT=1002\n');
  const config = loadConfig({}, { root: ward.root });
  t.is(config.storageDir, elsewhere);
  t.is(config.port, '1002');
  t.is(config.grantsFile.path, path.join(elsewhere, 'grants.json'));
});

test('WARD_STORAGE_DIR in ward.env is ignored with a warning: the file is found through it', async (t) => {
  const ward = await scratchWard({ storageEnv: 'WARD_STORAGE_DIR=/elsewhere\n' });
  const config = loadConfig({}, { root: ward.root });
  t.is(config.storageDir, ward.storage);
  t.deepEqual(config.warnings, [
    `${ward.storageEnv}:1: WARD_STORAGE_DIR is ignored here: this file is found through it; set it in the environment or in the .env beside Ward's package.json`,
  ]);
});

test('an unknown key is a warning naming the closest known setting, and is not taken', async (t) => {
  const ward = await scratchWard({ storageEnv: 'WARD_MODUL_PATHS=/srv/modules\n' });
  const config = loadConfig({}, { root: ward.root });
  t.deepEqual(config.modulePaths, []);
  t.deepEqual(config.warnings, [
    `${ward.storageEnv}:1: WARD_MODUL_PATHS is not a Ward setting, ignored; did you mean WARD_MODULE_PATHS?`,
  ]);
});

test('NODE_OPTIONS or PATH in a file are ignored with a warning: a file sets only Ward settings', async (t) => {
  const ward = await scratchWard({ rootEnv: 'NODE_OPTIONS=--require /tmp/evil.js\nPATH=/tmp\n' });
  const env: NodeJS.ProcessEnv = {};
  const config = loadConfig(env, { root: ward.root });
  applyModuleSettings(config, env);
  t.deepEqual(env, {});
  t.false(config.resolved.has('NODE_OPTIONS'));
  t.deepEqual(config.warnings, [
    `${ward.rootEnv}:1: NODE_OPTIONS is not a Ward setting, ignored (a settings file sets only the settings Ward lists in \`ward config\`)`,
    `${ward.rootEnv}:2: PATH is not a Ward setting, ignored (a settings file sets only the settings Ward lists in \`ward config\`)`,
  ]);
});

test('a key set twice in one file: the last line counts, with a warning', async (t) => {
  const ward = await scratchWard({ storageEnv: 'PORT=1\nPORT=2\n' });
  const config = loadConfig({}, { root: ward.root });
  t.is(config.port, '2');
  t.deepEqual(config.warnings, [
    `${ward.storageEnv}:2: PORT is set again (first on line 1); this line counts`,
  ]);
});

test('a malformed line in either file is an error naming the file and line', async (t) => {
  const ward = await scratchWard({ rootEnv: 'PORT=1\nnot a setting\n' });
  const error = t.throws<WardError>(() => loadConfig({}, { root: ward.root }));
  t.is(error?.code, 'invalid_settings_file');
  t.is(
    error?.message,
    `${ward.rootEnv}:2: expected KEY=value, found a line starting "not" (the rest is not shown: it may hold a secret)`,
  );
});

test('a backend copies module settings from a file into its environment, and nothing else', async (t) => {
  const ward = await scratchWard({
    storageEnv: 'WARD_DOCUMENT_MAX_BYTES=1mb\nWARD_IMPORT_BATCH_SIZE=10\nPORT=1002\n',
  });
  const env: NodeJS.ProcessEnv = { WARD_IMPORT_BATCH_SIZE: '20' };
  applyModuleSettings(loadConfig(env, { root: ward.root }), env);
  t.deepEqual(env, { WARD_IMPORT_BATCH_SIZE: '20', WARD_DOCUMENT_MAX_BYTES: '1mb' });
});
