/**
 * Builds ajv's validators ahead of time ("standalone" code) into generated/, which git ignores:
 *  - manifest.validate.cjs, from src/manifests/manifest.schema.json, so that a `ward` command
 *    validates manifests without loading ajv's compiler or compiling the schema;
 *  - draft-07.validate.cjs, the draft-07 meta-schema with the settings of Ward's own ajv instances
 *    (src/sdk/ajv-config.ts), which ajv would otherwise compile in every instance at each start.
 * `npm install` and `npm ci` run it (the `prepare` script), as they build the web shell; it needs
 * only ajv, a production dependency. CommonJS because ajv's standalone code require()s its runtime.
 * Run it again after editing the schema or the settings:  node scripts/build-validators.ts
 * test/manifests/manifest-code.test.ts and test/sdk/ajv-meta.test.ts fail while either is stale.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { AJV_OPTIONS, configureAjv, DRAFT_07 } from '../src/sdk/ajv-config.ts';
import { GENERATED_DIR, generatedFile } from '../src/generated.ts';

const schemaFile = fileURLToPath(new URL('../src/manifests/manifest.schema.json', import.meta.url));
export const manifestValidatorFile = generatedFile('manifest.validate.cjs');
export const metaValidatorFile = generatedFile('draft-07.validate.cjs');

const banner = (what: string) =>
  `/* ${what}, built by scripts/build-validators.ts at install; do not edit. */\n/* eslint-disable */\n`;

/** The options here are the validator's behaviour: all errors, defaults filled in, data in errors. */
export async function manifestValidatorSource(): Promise<string> {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, verbose: true, code: { source: true } });
  const validate = ajv.compile(JSON.parse(await readFile(schemaFile, 'utf8')));
  return `${banner('The manifest validator')}${standaloneCode.default(ajv, validate)}\n`;
}

export function metaValidatorSource(): string {
  const ajv = configureAjv(new Ajv({ ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, source: true } }));
  const validate = ajv.getSchema(DRAFT_07);
  if (validate === undefined) throw new Error(`ajv does not know ${DRAFT_07}`);
  return `${banner("ajv's draft-07 meta-schema validator")}${standaloneCode.default(ajv, validate)}\n`;
}

if (import.meta.main) {
  await mkdir(GENERATED_DIR, { recursive: true });
  await writeFile(manifestValidatorFile, await manifestValidatorSource());
  await writeFile(metaValidatorFile, metaValidatorSource());
  console.log('ward: validators built (generated/)');
}
