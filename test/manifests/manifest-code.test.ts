import test from 'ava';
import { readFile } from 'node:fs/promises';
import {
  generateManifestTypes,
  generateManifestValidator,
  typesFile,
  validatorFile,
} from '../../scripts/generate-manifest-code.ts';

const stale = (file: string) => `${file} is stale; run: node scripts/generate-manifest-code.ts`;

test('manifest.types.ts is what the schema generates', async (t) => {
  t.true((await readFile(typesFile, 'utf8')) === (await generateManifestTypes()), stale(typesFile));
});

test('manifest.validate.cjs is what the schema generates', async (t) => {
  t.true(
    (await readFile(validatorFile, 'utf8')) === (await generateManifestValidator()),
    stale(validatorFile),
  );
});
