/**
 * Generates, from src/manifests/manifest.schema.json (the one source of truth for manifests):
 *  - manifest.types.ts: the TypeScript `Manifest` type the code reads;
 *  - manifest.validate.cjs: the ajv validator compiled ahead of time ("standalone"), so that a
 *    `ward` command validates manifests without importing ajv's compiler or compiling the schema
 *    (about 30 ms of every start-up). CommonJS because ajv's standalone code require()s its small
 *    runtime helpers.
 * Run after editing the schema:  node scripts/generate-manifest-code.ts
 * test/manifests/manifest-code.test.ts fails while either file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { format, resolveConfig } from 'prettier';

const manifests = (file: string) => fileURLToPath(new URL(`../src/manifests/${file}`, import.meta.url));
export const schemaFile = manifests('manifest.schema.json');
export const typesFile = manifests('manifest.types.ts');
export const validatorFile = manifests('manifest.validate.cjs');

const banner = (what: string) =>
  [
    '/**',
    ` * ${what} generated from manifest.schema.json by scripts/generate-manifest-code.ts; do not edit.`,
    ' * To change the manifest, edit the schema and run: node scripts/generate-manifest-code.ts',
    ' */',
  ].join('\n');

async function readSchema(): Promise<JSONSchema> {
  return JSON.parse(await readFile(schemaFile, 'utf8')) as JSONSchema;
}

async function formatted(source: string, filepath: string): Promise<string> {
  const config = await resolveConfig(filepath);
  return format(source, { ...config, filepath });
}

export async function generateManifestTypes(): Promise<string> {
  const source = await compile(await readSchema(), 'Manifest', {
    bannerComment: banner('The Manifest type,'),
    format: false,
    additionalProperties: false,
    strictIndexSignatures: true,
    unknownAny: true,
  });
  return formatted(source, typesFile);
}

/** The options here are the validator's behaviour: all errors, defaults filled in, data in errors. */
export async function generateManifestValidator(): Promise<string> {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    verbose: true,
    code: { source: true, lines: true },
  });
  const validate = ajv.compile(await readSchema());
  const source = `${banner('The manifest validator,')}\n/* eslint-disable */\n${standaloneCode.default(ajv, validate)}`;
  return formatted(source, validatorFile);
}

if (import.meta.main) {
  await writeFile(typesFile, await generateManifestTypes());
  await writeFile(validatorFile, await generateManifestValidator());
  console.log(`wrote ${typesFile}\nwrote ${validatorFile}`);
}
