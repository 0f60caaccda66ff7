import test from 'ava';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fixturesDir, importFixtures } from '../../../scripts/generate-import-fixtures.ts';

const stale = (path: string) =>
  `test/fixtures/import/${path} is stale; run: node scripts/generate-import-fixtures.ts`;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(fixturesDir, join(entry.parentPath, entry.name)))
    .sort((a, b) => a.localeCompare(b));
}

test('the committed fixtures are exactly what the generator writes', async (t) => {
  const expected = await importFixtures();
  t.deepEqual(await filesUnder(fixturesDir), [...expected.keys()], 'files added or missing; regenerate');
  for (const [path, content] of expected) {
    t.true(Buffer.compare(await readFile(join(fixturesDir, path)), content) === 0, stale(path));
  }
});

test('the generator is deterministic: same seed, same bytes; another seed, other people', async (t) => {
  const digest = (files: Map<string, Uint8Array>) =>
    createHash('sha256')
      .update([...files.values()].map((content) => createHash('sha256').update(content).digest('hex')).join())
      .digest('hex');
  t.is(digest(await importFixtures()), digest(await importFixtures()));
  t.not(digest(await importFixtures(7)), digest(await importFixtures()));
});
