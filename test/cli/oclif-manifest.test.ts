import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { buildManifest } from '../../scripts/oclif-manifest.ts';
import { ROOT } from '../../src/config.ts';

test('oclif.manifest.json lists every command as the sources define it', async (t) => {
  const committed = await readFile(path.join(ROOT, 'oclif.manifest.json'), 'utf8');
  t.true(
    committed === (await buildManifest()),
    'oclif.manifest.json is stale; run: node scripts/oclif-manifest.ts',
  );
});
