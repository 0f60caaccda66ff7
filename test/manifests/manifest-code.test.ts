import test from 'ava';
import { glob, readFile } from 'node:fs/promises';
import { manifestValidatorFile, manifestValidatorSource } from '../../scripts/build-validators.ts';
import { generateManifestTypes, typesFile } from '../../scripts/generate-manifest-code.ts';
import { loadGenerated } from '../../src/generated.ts';
import { WardError } from '../../src/errors/ward-error.ts';

test('the Manifest type built at install is what the schema generates', async (t) => {
  t.true(
    (await readFile(typesFile, 'utf8')) === (await generateManifestTypes()),
    `${typesFile} is stale; run: npm run build:validators`,
  );
});

test('no file under src/ is generated', async (t) => {
  const generatedInSrc = [];
  for await (const file of glob('src/**/*', { withFileTypes: false })) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (/do not edit/i.test(text)) generatedInSrc.push(file);
  }
  t.deepEqual(generatedInSrc, []);
});

test('the manifest validator built at install is what the schema generates', async (t) => {
  t.true(
    (await readFile(manifestValidatorFile, 'utf8')) === (await manifestValidatorSource()),
    `${manifestValidatorFile} is stale; run: node scripts/build-validators.ts`,
  );
});

test('a validator that was never built is an error that says how to build it', (t) => {
  const error = t.throws(() => loadGenerated('never-built.validate.cjs'), { instanceOf: WardError });
  t.is(error?.code, 'not_built');
  t.regex(
    error?.message ?? '',
    /never-built\.validate\.cjs is missing: Ward builds it when it is installed$/,
  );
  t.is(
    error?.hint,
    'run `npm install` in the Ward folder, or `node_modules/node/bin/node scripts/build-validators.ts`',
  );
});
