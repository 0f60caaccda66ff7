/**
 * `requires` end to end, as an operator meets it: the ranges an install records, `modules info`
 * showing them, an upgrade that would leave an installed dependent outside its range refused before
 * anything is scheduled, `--cascade` upgrading the dependent too, `--force` scheduling it anyway
 * and `doctor` then reporting the broken range.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scratchDir, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { snapshot } from '../helpers/rows.ts';
import { restart } from '../helpers/serve.ts';

async function putModule(
  folder: string,
  name: string,
  manifest: { version: string; depends?: string[]; requires?: Record<string, string> },
): Promise<void> {
  const dir = path.join(folder, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(dir, 'migrations'), { recursive: true });
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ name, ...manifest }));
}

test('an upgrade that leaves an installed dependent outside its range is refused and changes nothing; --cascade and --force as documented', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const folder = await scratchDir('ward-requires-');
  const env = {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: folder,
    WARD_STORAGE_DIR: await scratchDir('ward-storage-'),
    WARD_FRONTEND_DIR: await scratchDir('ward-frontend-'),
  };
  await putModule(folder, 'lab', { version: '1.0.0' });
  await putModule(folder, 'lab_reports', { version: '1.0.0', depends: ['lab'], requires: { lab: '^1.0.0' } });
  const install = await ward(['modules', 'install', 'lab_reports'], env);
  t.is(install.code, 0, install.stderr);
  await restart(env);
  t.deepEqual(
    await knex('core_module')
      .whereIn('name', ['lab', 'lab_reports'])
      .orderBy('name')
      .select('name', 'state', 'requires'),
    [
      { name: 'lab', state: 'installed', requires: {} },
      { name: 'lab_reports', state: 'installed', requires: { lab: '^1.0.0' } },
    ],
    'the install records the ranges of the installed version',
  );
  const info = await ward(['modules', 'info', 'lab_reports'], env);
  t.regex(info.stdout, /^Requires: +lab \^1\.0\.0$/m);

  // A new version of each is put on disk: lab 2.0.0, and a lab_reports made for it.
  await putModule(folder, 'lab', { version: '2.0.0' });
  await putModule(folder, 'lab_reports', { version: '1.1.0', depends: ['lab'], requires: { lab: '^2.0.0' } });
  const before = await snapshot(knex);
  const refused = await ward(['modules', 'upgrade', 'lab'], env);
  t.is(refused.code, 1);
  t.is(
    refused.stderr,
    'error: upgrading lab would leave modules outside a version range they require: lab_reports 1.0.0 requires lab ^1.0.0, and lab would be 2.0.0\n' +
      'hint: pass --cascade to upgrade lab_reports to 1.1.0, its version on disk, which accepts lab 2.0.0; or pass --force to upgrade anyway and leave them outside (`ward modules doctor` reports it until mended)\n',
  );
  t.deepEqual(await snapshot(knex), before, 'a refused upgrade schedules nothing and logs nothing');

  const cascade = await ward(['modules', 'upgrade', 'lab', '--cascade', '--dry-run'], env);
  t.is(cascade.code, 0, cascade.stderr);
  t.regex(cascade.stdout, /^ {2}~ lab {10}1\.0\.0 -> 2\.0\.0 {2}requested$/m);
  t.regex(cascade.stdout, /^ {2}~ lab_reports {2}1\.0\.0 -> 1\.1\.0 {2}dependent of lab$/m);
  t.deepEqual(await snapshot(knex), before, 'a dry run changes nothing');

  const forced = await ward(['modules', 'upgrade', 'lab', '--force'], env);
  t.is(forced.code, 0, forced.stderr);
  t.regex(
    forced.stdout,
    /^ {2}! lab_reports {2}left outside a range \(--force\): lab_reports 1\.0\.0 requires lab \^1\.0\.0, and lab would be 2\.0\.0$/m,
  );
  const doctor = await ward(['modules', 'doctor'], env);
  t.is(doctor.code, 1);
  t.regex(
    doctor.stdout,
    /^Broken version ranges.*:\n {2}lab_reports 1\.0\.0 requires lab \^1\.0\.0, and lab is 2\.0\.0\n {4}hint: upgrade lab_reports to 1\.1\.0/m,
  );
});

test('an install whose range an installed module is outside is refused before anything is scheduled', async (t) => {
  const { url, knex } = await testDatabase(t, { migrated: true });
  const folder = await scratchDir('ward-requires-');
  const env = {
    DATABASE_URL: url,
    WARD_MODULE_PATHS: folder,
    WARD_STORAGE_DIR: await scratchDir('ward-storage-'),
    WARD_FRONTEND_DIR: await scratchDir('ward-frontend-'),
  };
  await putModule(folder, 'lab', { version: '1.0.0' });
  await putModule(folder, 'lab_charts', { version: '1.0.0', depends: ['lab'], requires: { lab: '>=3.0.0' } });
  t.is((await ward(['modules', 'install', 'lab'], env)).code, 0);
  const before = await snapshot(knex);
  const refused = await ward(['modules', 'install', 'lab_charts'], env);
  t.is(refused.code, 1);
  t.regex(
    refused.stderr,
    /^error: installing lab_charts would leave modules outside a version range they require: lab_charts 1\.0\.0 requires lab >=3\.0\.0, and lab would be 1\.0\.0$/m,
  );
  t.regex(refused.stderr, /^hint: put a version of lab in >=3\.0\.0 on disk/m);
  t.deepEqual(await snapshot(knex), before);
});
