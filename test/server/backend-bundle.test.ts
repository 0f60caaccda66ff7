/**
 * Every backend runs from the bundle in build/, and a bundle that is not the code on disk does not
 * run silently: a backend refuses it (changing no data), and `ward serve` builds it again first.
 * `ward modules list`, which runs from a bundle of its own built beside it, falls back to the
 * sources instead. The end-to-end tests work on a copy of the Ward folder (its code copied, its
 * packages, modules and validators linked), so that changing a source file there leaves this
 * checkout's bundle alone.
 */
import { appendFile, cp, mkdir, readFile, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { ROOT } from '../../src/config.ts';
import {
  BUNDLE_DIR,
  BUNDLE_INPUTS,
  sha256,
  staleInput,
  type BundleInputs,
  type Disk,
  type FileStat,
} from '../../src/server/backend-bundle.ts';
import { scratchDir, tracedWard, ward } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { serve } from '../helpers/serve.ts';

/** A disk holding exactly `files` (path to its stat and hash). */
const diskOf = (files: Map<string, { size: number; mtimeMs: number; sha256: string }>): Disk => ({
  stat: (file): FileStat => {
    const found = files.get(file);
    return found === undefined ? null : { size: found.size, mtimeMs: found.mtimeMs };
  },
  sha256: (file) => files.get(file)?.sha256 ?? '',
});

const recorded = fc.uniqueArray(
  fc.record({
    path: fc.stringMatching(/^src\/[a-z]{1,8}\.ts$/),
    size: fc.nat(100_000),
    mtimeMs: fc.nat(),
    sha256: fc.stringMatching(/^[0-9a-f]{8}$/),
  }),
  { selector: (file) => file.path, minLength: 1, maxLength: 20 },
);

const onDisk = (inputs: BundleInputs) => new Map(inputs.files.map((file) => [file.path, { ...file }]));

test('the inputs as recorded are fresh, and so are files that only got a new time', (t) => {
  fc.assert(
    fc.property(recorded, fc.nat(), (files, later) => {
      const inputs = { files };
      const disk = onDisk(inputs);
      if (staleInput(inputs, diskOf(disk)) !== null) return false;
      for (const file of disk.values()) file.mtimeMs += later + 1;
      return staleInput(inputs, diskOf(disk)) === null;
    }),
  );
  t.pass();
});

test('a file whose content changed, or that is gone, makes the bundle stale and is named', (t) => {
  fc.assert(
    fc.property(recorded, fc.nat(), fc.boolean(), fc.boolean(), (files, pick, gone, sameSize) => {
      const inputs = { files };
      const disk = onDisk(inputs);
      const changed = files[pick % files.length]!;
      if (gone) {
        disk.delete(changed.path);
        return staleInput(inputs, diskOf(disk)) === `${changed.path} is gone`;
      }
      const entry = disk.get(changed.path)!;
      entry.mtimeMs += 1;
      entry.sha256 = `${entry.sha256}!`;
      if (!sameSize) entry.size += 1;
      return staleInput(inputs, diskOf(disk)) === `${changed.path} changed`;
    }),
  );
  t.pass();
});

/** A Ward folder whose code is a copy of this one's (new file times), bundle included. */
async function wardCopy(): Promise<{ root: string; bin: string }> {
  const root = await scratchDir('ward-copy-');
  for (const copied of ['src', 'bin', BUNDLE_DIR, 'package.json', 'package-lock.json', 'oclif.manifest.json'])
    await cp(path.join(ROOT, copied), path.join(root, copied), { recursive: true });
  for (const linked of ['node_modules', 'modules', 'generated', 'frontend'])
    await symlink(path.join(ROOT, linked), path.join(root, linked));
  await mkdir(path.join(root, 'storage'));
  return { root, bin: path.join(root, 'bin', 'ward') };
}

const tableCount = async (knex: Knex): Promise<number> => {
  const [row] = await knex('information_schema.tables')
    .where({ table_schema: 'public' })
    .count<{ n: string }[]>('* as n');
  return Number(row?.n);
};

test('a backend runs from a copied bundle whose sources only got new times', async (t) => {
  const { root, bin } = await wardCopy();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const { url } = await testDatabase(t);
  const served = await serve({ DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir() }, 'backend', bin);
  t.teardown(() => served.stop());
  t.is((await fetch(`${served.base}/health`)).status, 200);
});

test('a backend refuses a bundle older than the sources, says how to build it, and changes no data', async (t) => {
  const { root, bin } = await wardCopy();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await appendFile(path.join(root, 'src', 'server', 'drain.ts'), '\n// edited after the build\n');
  const { url, knex } = await testDatabase(t);
  const run = await ward(['backend'], { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir() }, { bin });
  t.is(run.code, 1);
  t.regex(
    run.stderr,
    /error: the backend bundle in build\/ is not the code on disk: src\/server\/drain\.ts changed/,
  );
  t.regex(run.stderr, /hint: run `npm run build:backend`/);
  t.is(await tableCount(knex), 0, 'nothing was migrated');
});

test('a backend refuses to start when the bundle was never built', async (t) => {
  const { root, bin } = await wardCopy();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await rm(path.join(root, BUNDLE_DIR), { recursive: true });
  const { url, knex } = await testDatabase(t);
  const run = await ward(['backend'], { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir() }, { bin });
  t.is(run.code, 1);
  t.regex(
    run.stderr,
    /error: the backend bundle in build\/ is not the code on disk: the backend has not been built/,
  );
  t.regex(run.stderr, /hint: run `npm run build:backend`/);
  t.is(await tableCount(knex), 0, 'nothing was migrated');
});

test('ward serve builds a stale bundle again before its backend starts from it', async (t) => {
  const { root, bin } = await wardCopy();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const edited = path.join(root, 'src', 'server', 'drain.ts');
  await appendFile(edited, '\n// edited after the build\n');
  const { url } = await testDatabase(t);
  const served = await serve(
    { DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir(), LOG_LEVEL: 'info' },
    'serve',
    bin,
  );
  t.teardown(() => served.stop());
  t.regex(served.output(), /building the backend bundle/);
  t.regex(served.output(), /src\/server\/drain\.ts changed/);
  t.is((await fetch(`${served.base}/health`)).status, 200);
  const inputs = JSON.parse(await readFile(path.join(root, BUNDLE_INPUTS), 'utf8')) as BundleInputs;
  const rebuilt = inputs.files.find((file) => file.path === 'src/server/drain.ts');
  t.is(rebuilt?.sha256, sha256(await readFile(edited)), 'the bundle was built from the edited file');
});

/** `ward modules list --json` of the Ward folder whose `bin/ward` is `bin`, and the files it loaded. */
const listed = (bin: string, url: string) =>
  tracedWard(['modules', 'list', '--json'], { DATABASE_URL: url }, { bin });

test('`ward modules list` runs from the sources when the bundle is stale, and prints the same', async (t) => {
  const { root, bin } = await wardCopy();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const { url } = await testDatabase(t, { migrated: true });
  const fresh = await listed(bin, url);
  t.is(fresh.run.code, 0);
  t.regex(fresh.loaded, /\/build\/modules-list\.mjs$/m, 'a fresh bundle runs');
  t.notRegex(fresh.loaded, /\/src\/.*\.ts$/m, 'and the sources do not');
  await appendFile(path.join(root, 'src', 'cli', 'render.ts'), '\n// edited after the build\n');
  const stale = await listed(bin, url);
  t.regex(stale.loaded, /\/src\/cli\/lean-list\.ts$/m, 'the edited sources run');
  t.deepEqual(
    { stdout: stale.run.stdout, code: stale.run.code },
    { stdout: fresh.run.stdout, code: fresh.run.code },
  );
});
